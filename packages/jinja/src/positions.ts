import type { SourcePos } from '@brine/core';

/** Where each ID (and each state declaration under it) came from in its SLS file. */
export interface IdPositions {
  pos: SourcePos;
  /** Keyed by the state declaration key as written (`file.managed`, `pkg`, ...). */
  states: Record<string, SourcePos>;
  /** Keyed `<state key>/<arg key>`, e.g. `file.managed/require`. */
  args: Record<string, SourcePos>;
}

/** Positions of the top-level keys of one rendered SLS file. */
export interface PositionMap {
  file: string;
  ids: Record<string, IdPositions>;
}
