import { parse } from 'yaml';
import type { RenderInput, RenderOutput } from '../../src/render/types.js';

/** Stand-in renderer for stage tests that need no templating: YAML 1.1 like Salt's loader. */
export function yamlOnlyRender(input: RenderInput): RenderOutput {
  const high = (parse(input.text, { version: '1.1' }) ?? {}) as Record<string, unknown>;
  return { high, positions: { file: input.path, ids: {} }, diagnostics: [] };
}
