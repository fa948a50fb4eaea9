import { globMatch } from '@brine/compiler';
import { isoNow } from './iso-now.js';
import type { StoreBackend } from './store-backend.js';

export interface BusEvent {
  tag: string;
  data: unknown;
  stamp: string;
  /** Set on an event another master of the cluster fired. */
  origin?: string;
  /**
   * What makes this event the same occurrence when it is fired again (a job's return resent to
   * another master, a minion's event.send asked again after a failover): the reactor claims it
   * under this key, so it reacts once. Not stored.
   */
  once?: string;
}

type Listener = (ev: BusEvent) => void;

/**
 * Master events: each is stored, then handed to live subscribers once the store has it, so a
 * subscriber never hears of something a later query could not find.
 */
export class EventBus {
  private listeners = new Set<{ pattern: string; fn: Listener }>();
  counts = { fired: 0, lost: 0 };

  private readonly store: StoreBackend;
  private readonly onLost: (tag: string, err: Error) => void;
  /** `onLost` hears of an event the store refused (the master logs it); it reaches no subscriber. */
  constructor(store: StoreBackend, onLost: (tag: string, err: Error) => void = () => undefined) {
    this.store = store;
    this.onLost = onLost;
  }

  fire(tag: string, data: unknown, once?: string): void {
    const ev: BusEvent = { tag, data, stamp: isoNow(), ...(once !== undefined ? { once } : {}) };
    this.counts.fired++;
    this.store.insertEvent(tag, data).then(
      () => {
        for (const l of this.listeners) {
          if (l.pattern === '*' || globMatch(tag, l.pattern)) {
            try {
              l.fn(ev);
            } catch {
              // a broken subscriber must not stop the others
            }
          }
        }
      },
      (err: unknown) => {
        this.counts.lost++;
        this.onLost(tag, err instanceof Error ? err : new Error(String(err)));
      },
    );
  }

  /**
   * An event another master of the cluster stored: handed to this master's subscribers as if
   * fired here (it is stored already). `origin` names that master.
   */
  deliver(tag: string, data: unknown, stamp: string, origin: string): void {
    const ev: BusEvent = { tag, data, stamp, origin };
    for (const l of this.listeners) {
      if (l.pattern === '*' || globMatch(tag, l.pattern)) {
        try {
          l.fn(ev);
        } catch {
          // as in fire
        }
      }
    }
  }

  /** Listens to tags matching a glob (`*` crosses `/`); returns the unsubscribe function. */
  subscribe(pattern: string, fn: Listener): () => void {
    const entry = { pattern, fn };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }
}
