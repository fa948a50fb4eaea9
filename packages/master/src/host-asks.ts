import type { HostAnswersMsg, HostCallAnswer, HostCallItem } from '@brine/protocol';
import { masterErrors } from './errors.js';
import type { Session } from './session.js';

interface Pending {
  session: Session;
  resolve(answers: HostCallAnswer[]): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The master's questions to a minion's host while it compiles that minion's job (`host_calls`,
 * answered by `host_answers`). Only the session asked can answer; a question ends with its
 * answers, an error frame naming it, the session closing, or the timeout.
 */
export class HostAsks {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;

  private readonly send: (session: Session, msg: { type: 'host_calls'; id: string; jid?: string; calls: HostCallItem[] }) => boolean;
  private readonly timeoutS: number;
  constructor(send: (session: Session, msg: { type: 'host_calls'; id: string; jid?: string; calls: HostCallItem[] }) => boolean, timeoutS: number) {
    this.send = send;
    this.timeoutS = timeoutS;
  }

  ask(session: Session, calls: HostCallItem[], jid?: string): Promise<HostCallAnswer[]> {
    const minion = session.minion ?? session.claimed ?? '';
    const id = `h${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(masterErrors.make('BRINE_ERR_MASTER_HOST_TIMEOUT', { minion, seconds: this.timeoutS }));
      }, this.timeoutS * 1000);
      timer.unref();
      this.pending.set(id, { session, resolve, reject, timer });
      if (!this.send(session, { type: 'host_calls', id, ...(jid ? { jid } : {}), calls })) {
        this.settle(id)?.reject(masterErrors.make('BRINE_ERR_MASTER_HOST_GONE', { minion }));
      }
    });
  }

  private settle(id: string): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    clearTimeout(p.timer);
    return p;
  }

  /** A `host_answers` frame: false when it answers nothing this session was asked. */
  answer(session: Session, msg: HostAnswersMsg): boolean {
    const p = this.pending.get(msg.ref);
    if (!p || p.session !== session) return false;
    this.settle(msg.ref)!.resolve(msg.answers);
    return true;
  }

  /** An `error` frame from the minion: true when it was about one of its questions. */
  fail(session: Session, ref: string | undefined, code: string, message: string): boolean {
    const p = ref === undefined ? undefined : this.pending.get(ref);
    if (!p || p.session !== session) return false;
    this.settle(ref!)!.reject(masterErrors.make('BRINE_ERR_MASTER_HOST_REFUSED', { minion: session.minion ?? '', code, message }));
    return true;
  }

  /** The session closed: its questions will not be answered. */
  drop(session: Session): void {
    for (const [id, p] of this.pending) {
      if (p.session === session) this.settle(id)!.reject(masterErrors.make('BRINE_ERR_MASTER_HOST_GONE', { minion: session.minion ?? session.claimed ?? '' }));
    }
  }
}
