import type { StateContext } from '@brine/core';
import { renderTemplateString } from '@brine/jinja';

/**
 * Renders a file's text with the named template engine (only `jinja`: Brine's Jinja dialect, the
 * same one SLS files use) and the run's template context, overlaid with `defaults` then
 * `context` as Salt does. A template error throws with the template's name and line.
 */
export function renderTemplate(
  text: string,
  engine: string,
  ctx: StateContext,
  defaults?: Record<string, unknown>,
  context?: Record<string, unknown>,
  name = 'template',
): string {
  if (engine !== 'jinja') throw new Error(`template engine '${engine}' is not supported (only jinja)`);
  const base = ctx.templateContext ?? {};
  const { grains, pillar, opts, ...rest } = base as Record<string, Record<string, unknown> | undefined>;
  const out = renderTemplateString(text, {
    name,
    ...(grains ? { grains } : {}),
    ...(pillar ? { pillar } : {}),
    ...(opts ? { opts } : {}),
    vars: { ...rest, ...(defaults ?? {}), ...(context ?? {}) },
  });
  if (!out.ok) {
    const where = out.error.line !== undefined ? ` (line ${out.error.line}${out.error.column !== undefined ? `, column ${out.error.column}` : ''})` : '';
    throw new Error(`${name}${where}: ${out.error.message}`);
  }
  return out.text;
}
