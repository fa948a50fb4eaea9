import type { Diagnostic } from '@brine/core';

/** What one `brine local` function gives back, for the outputters. */
export interface LocalResult {
  /** What `--out json` prints under the minion id. */
  value: unknown;
  retcode: number;
  diagnostics: Diagnostic[];
  /** A running dict (state runs) prints with the highstate outputter by default. */
  isRun?: boolean;
  /** The value is the list of compile errors. */
  compileFailed?: boolean;
  /** An execution function's value: printed with salt-call's default, the nested outputter. */
  isExec?: boolean;
}
