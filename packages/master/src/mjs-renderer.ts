import { renderMjs } from '@brine/core';
import type { MjsRenderer } from '@brine/compiler';
import type { MasterConfig } from './config.js';

/**
 * What answers a compile's `#!mjs` renders on this master: off unless `mjs_renderer` (the
 * module is tree authors' code, and Node 24 cannot take the network from its process); on, each
 * render runs in a fresh confined process under `render_timeout`.
 */
export function mjsRendererOf(config: Pick<MasterConfig, 'mjs_renderer' | 'render_timeout'>): MjsRenderer {
  if (!config.mjs_renderer) {
    return {
      refused:
        "the #!mjs renderer is off on this master: set 'mjs_renderer: true' in its config to run the tree's JavaScript modules (each render in a process without files or child processes; it can still reach the network)",
    };
  }
  return (source, context) => renderMjs(source, context, { timeoutMs: config.render_timeout * 1000 });
}
