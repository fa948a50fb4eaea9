/**
 * Rendering a Jinja template that is not an SLS file (e.g. `file.managed` with
 * `template: jinja`): same dialect, filters and `salt` helpers, text out.
 */
import { createJinjaEnvironment, TemplateFailure, type TemplateReader } from './environment.js';
import { builtinHelpers, saltObject, type HelperTable } from './salt-helpers.js';
import { deepCopy } from './traverse.js';

export interface TemplateStringOptions {
  /** The template's name (for error messages and `./` imports), e.g. `web/nginx.conf`. */
  name: string;
  /** Reads imported / included templates by path from the root; none when absent. */
  read?: TemplateReader;
  grains?: Record<string, unknown>;
  pillar?: Record<string, unknown>;
  opts?: Record<string, unknown>;
  salt?: HelperTable;
  /** Further variables (`context`/`defaults` of file.managed). */
  vars?: Record<string, unknown>;
}

/** Salt's `tpl*` variables for a template at `path` in its file root (`web/nginx.conf`). */
export function templatePathVars(path: string): Record<string, string> {
  const tplfile = path.replace(/^salt:\/\//, '').replace(/\?.*$/, '');
  const slash = tplfile.lastIndexOf('/');
  const tpldir = slash < 0 ? '.' : tplfile.slice(0, slash);
  return { tplpath: tplfile, tplfile, tpldir, tpldot: tpldir.replace(/\//g, '.'), tplroot: tpldir.split('/')[0]! };
}

export type TemplateStringResult = { ok: true; text: string } | { ok: false; error: TemplateFailure };

const noFiles: TemplateReader = () => undefined;
const shared = new WeakMap<TemplateReader, ReturnType<typeof createJinjaEnvironment>>();

/** Renders `text` as a Jinja template; never throws for template errors. */
export function renderTemplateString(text: string, options: TemplateStringOptions): TemplateStringResult {
  const read = options.read ?? noFiles;
  let env = shared.get(read);
  if (!env) {
    env = createJinjaEnvironment(read);
    shared.set(read, env);
  }
  const grains = options.grains ?? {};
  const pillar = deepCopy(options.pillar ?? {});
  const opts = { id: grains.id, ...(options.opts ?? {}) };
  const vars = {
    ...templatePathVars(options.name),
    grains,
    pillar,
    opts,
    salt: saltObject(builtinHelpers({ grains, pillar, opts }), options.salt),
    ...(options.vars ?? {}),
  };
  try {
    return { ok: true, text: env.render(options.name, text, vars) };
  } catch (e) {
    if (e instanceof TemplateFailure) return { ok: false, error: e };
    throw e;
  }
}
