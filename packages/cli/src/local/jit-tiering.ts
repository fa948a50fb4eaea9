import { setFlagsFromString } from 'node:v8';

/**
 * A compile of hundreds or thousands of states runs each stage's loop once over every state: V8's Turbofan
 * compiles those long loops on the fly (on-stack replacement), deoptimises them at the first
 * branch they had not seen, and costs more CPU than its code saves before the process ends
 * (10,000 states: ~340 ms of CPU with it, ~220 ms without; the master's long-lived compile
 * workers never come here). A formula's tens of states keep Turbofan: its Jinja code is
 * called often enough to pay for it. Past `threshold` IDs rendered, Turbofan is off for the rest
 * of the compile and back on after it (an apply's runtime keeps it).
 */
export class CompileTiering {
  private ids = 0;
  private off = false;
  private readonly threshold: number;
  private readonly setFlags: (flags: string) => void;

  constructor(threshold = BIG_COMPILE_IDS, setFlags: (flags: string) => void = setFlagsFromString, given = tierFlagsGiven()) {
    // the process's own tier flags decide (under --jitless, Turbofan switched on crashes V8)
    this.threshold = given ? Infinity : threshold;
    this.setFlags = setFlags;
  }

  /** Counts the IDs of one rendered file. */
  rendered(high: object | undefined): void {
    if (this.off || high === undefined) return;
    for (const _ in high) this.ids++;
    if (this.ids > this.threshold) {
      this.off = true;
      this.setFlags('--no-turbofan');
    }
  }

  /** The compile is over: Turbofan back for what runs next. */
  done(): void {
    if (!this.off) return;
    this.off = false;
    this.setFlags('--turbofan');
  }
}

/** IDs rendered past which a compile runs without Turbofan (the corpus's biggest formula: 74 states). */
export const BIG_COMPILE_IDS = 500;

/** Whether Node was started with flags that choose V8's tiers itself (on its command line or in NODE_OPTIONS). */
export function tierFlagsGiven(argv: string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return /--(no-|always-)?(turbofan|opt|maglev|sparkplug|jitless|lite-mode)\b|--max-opt/.test(`${argv.join(' ')} ${nodeOptions}`);
}
