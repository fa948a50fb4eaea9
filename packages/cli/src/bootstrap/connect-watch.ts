import type { MasterClient } from '@brine/master/client';

/**
 * The master's `brine/minion/<id>/start` events (fired once a minion has authenticated and sent
 * its grains), followed on one event stream for the whole bootstrap run: a host waits for its
 * minion's next start instead of polling.
 */
export class ConnectWatch {
  private readonly client: MasterClient;
  private readonly abort = new AbortController();
  private readonly waiters = new Map<string, Array<() => void>>();
  private streamError: Error | undefined;

  constructor(client: MasterClient) {
    this.client = client;
  }

  /** Resolves once the stream is open, so that no start after it is missed. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client
        .events(
          'brine/minion/*/start',
          (ev) => {
            const id = (ev.data as { id?: unknown }).id;
            if (typeof id !== 'string') return;
            for (const w of this.waiters.get(id) ?? []) w();
            this.waiters.delete(id);
          },
          this.abort.signal,
          resolve,
        )
        .then(
          () => this.lost(new Error('the master closed its event stream')),
          (err: unknown) => {
            this.lost(err as Error);
            reject(err as Error);
          },
        );
    });
  }

  private lost(err: Error): void {
    if (this.abort.signal.aborted) return;
    this.streamError = err;
    for (const ws of this.waiters.values()) for (const w of ws) w();
  }

  /** A promise for the next start of `id` (from now on); false when `timeoutMs` passes first. */
  next(id: string, timeoutMs: number): { started: Promise<boolean>; cancel: () => void } {
    let cancel = () => {};
    const started = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        const list = (this.waiters.get(id) ?? []).filter((w) => w !== hit);
        if (list.length) this.waiters.set(id, list);
        else this.waiters.delete(id);
        resolve(ok && !this.streamError);
      };
      const hit = () => done(true);
      cancel = () => done(false);
      this.waiters.set(id, [...(this.waiters.get(id) ?? []), hit]);
    });
    return { started, cancel };
  }

  close(): void {
    this.abort.abort();
  }
}
