import type { Diagnostic, Grains, HighData, Pillar } from '@brine/core';
import type { HostAnswers, HostCallRecord, IdPositions, PositionMap } from '@brine/jinja';

export type { IdPositions, PositionMap };
import type { StateTree } from '../state-tree.js';

/** What the template sees besides `grains`, `pillar`, ... : Salt's `salt` helper object. */
export type SaltHelpers = Record<string, Record<string, (...args: never[]) => unknown>>;

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
  /**
   * Answers to host calls (`cmd.has_exec`, `user.info`, ...), by hostCallKey. A call not in the
   * table makes the render incomplete: it fails with BRINE_ERR_COMPILE_HOST_CALL and lists the
   * call in `hostCalls`, for a caller that can ask the host and render again.
   */
  hostAnswers?: HostAnswers;
  /** Where the gpg renderer puts the PGP blocks it finds (block -> file), for the master to decrypt (pillar only). */
  gpg?: Map<string, string>;
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
  /** Rendered only because a placeholder stood in for a host answer (see HostCallRecord.speculative). */
  speculative?: boolean;
  context: RenderContext;
}

export interface RenderOutput {
  /** Raw high data of the file, or undefined when it failed to render. */
  high: HighData | undefined;
  positions: PositionMap;
  diagnostics: Diagnostic[];
  /**
   * The document order of the top-level keys, given only when it differs from the object's own
   * order: JavaScript lists integer-like keys (an ID `22:`) first, YAML does not.
   */
  keyOrder?: string[];
  /** Every host call the templates made (given only when there was one). */
  hostCalls?: HostCallRecord[];
  /**
   * With a host call unanswered: what the file rendered to with a placeholder for the answer
   * (`high` is then undefined). Only for collecting, in the same round, the host calls of the
   * files it includes; never a result.
   */
  guess?: HighData;
}
