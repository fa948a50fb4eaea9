import type { Grains, Pillar } from '@brine/core';

/** A source that failed for one minion: the message names what went wrong, never a secret or the data. */
export class ExtPillarFailure extends Error {
  override name = 'ExtPillarFailure';
}

/** One `ext_pillar` entry other than git: asked afresh at each pillar compile, as Salt does. */
export interface ExtSource {
  /** Its name in `brine pillar explain`, errors and logs: `ext_pillar:cmd_yaml /usr/local/bin/x`. */
  label: string;
  fetch(id: string, grains: Grains): Promise<Pillar>;
  close?(): Promise<void>;
}

/** At most `n` tasks at once (commands and queries for a fleet's pillars); the rest wait in order. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly n: number;
  constructor(n: number) {
    this.n = n;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
