import type { Diagnostic, Grains, HighData, Pillar, SourcePos } from '@brine/core';
import type { StateTree } from '../state-tree.js';

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

/** What the template sees besides `grains`, `pillar`, ... : Salt's `salt` helper object. */
export type SaltHelpers = Record<string, Record<string, (...args: any[]) => unknown>>;

export interface RenderContext {
  grains: Grains;
  pillar: Pillar;
  params: Record<string, unknown>;
  /** Extra helper functions (`salt['mod.fun']`, `salt.mod.fun`); pillar.get / grains.get are built in. */
  salt?: SaltHelpers;
  /** Extra variables made visible to templates. */
  extra?: Record<string, unknown>;
  /** The minion's options as templates see them in `opts` (`id` defaults to grains.id). */
  opts?: Record<string, unknown>;
  /** Where `salt.log.*` calls in templates go (dropped when absent). */
  log?: (level: 'debug' | 'info' | 'warning' | 'error' | 'critical', message: string) => void;
}

export interface RenderInput {
  tree: StateTree;
  env: string;
  /** The SLS reference (e.g. `web.nginx`), or undefined for a top file. */
  sls?: string;
  /** The file's path in its env (e.g. `web/nginx/init.sls`). */
  path: string;
  /** The file's text (already read by the caller). */
  text: string;
  context: RenderContext;
}

export interface RenderOutput {
  /** Raw high data of the file, or undefined when it failed to render. */
  high: HighData | undefined;
  positions: PositionMap;
  diagnostics: Diagnostic[];
}
