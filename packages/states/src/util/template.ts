import nunjucks from 'nunjucks';
import type { StateContext } from '@brine/core';

let env: nunjucks.Environment | undefined;

function environment(): nunjucks.Environment {
  if (!env) env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });
  return env;
}

/**
 * Renders a file's text with the named template engine (only `jinja`, through nunjucks) and the
 * run's template context, overlaid with `defaults` then `context` as Salt does.
 */
export function renderTemplate(
  text: string,
  engine: string,
  ctx: StateContext,
  defaults?: Record<string, unknown>,
  context?: Record<string, unknown>,
): string {
  if (engine !== 'jinja') throw new Error(`template engine '${engine}' is not supported (only jinja)`);
  const vars = { ...(ctx.templateContext ?? {}), ...(defaults ?? {}), ...(context ?? {}) };
  return environment().renderString(text, vars);
}
