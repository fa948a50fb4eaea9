/** The two layers, highest first: a key bound in `site` shadows every binding of it in `modules`. */
export const LAYERS = ['site', 'modules'] as const;
export type Layer = (typeof LAYERS)[number];

/** One bindings file as a source offers it. */
export interface BindingsFileRef {
  layer: Layer;
  /** The root it was found under (a directory, or a label for in-memory sources). */
  root: string;
  /** Path relative to that root, `/`-separated: `ntp/bindings/default.yaml`. */
  path: string;
}

/**
 * How the resolver reads bindings files. It never touches the disk itself: the master passes a
 * directory-backed source (dirBindingsSource), tests may pass an in-memory one.
 */
export interface BindingsSource {
  /** Every candidate bindings file (`*.yaml` under a `bindings/` folder), highest layer first, then by root and path. */
  list(): BindingsFileRef[];
  /** The text of one listed file, or undefined when it vanished. */
  read(ref: BindingsFileRef): string | undefined;
}

/** True for paths where a bindings file lives: `<module>/bindings/**.yaml` or `bindings/**.yaml`. */
export function isBindingsPath(path: string): boolean {
  const parts = path.split('/');
  if (!path.endsWith('.yaml')) return false;
  if (parts[0] === 'bindings') return parts.length >= 2;
  return parts.length >= 3 && parts[1] === 'bindings';
}

/**
 * The logical name a file at `path` must carry: `awesome/bindings/default.yaml` is
 * `awesome::default`, `awesome/bindings/for_x/default.yaml` is `awesome::for_x::default`; a
 * root-level `bindings/default.yaml` (a site directory that is not a module) is `default`.
 */
export function bindingsNameOf(path: string): string {
  const parts = path.slice(0, -'.yaml'.length).split('/');
  const rest = parts[0] === 'bindings' ? parts.slice(1) : [parts[0], ...parts.slice(2)];
  return rest.join('::');
}

/** An in-memory source: `{site: {'path': text}, modules: {...}}` (root label `<memory>`). */
export function memoryBindingsSource(files: Partial<Record<Layer, Record<string, string>>>): BindingsSource {
  return {
    list() {
      const out: BindingsFileRef[] = [];
      for (const layer of LAYERS) {
        for (const path of Object.keys(files[layer] ?? {}).sort()) {
          if (isBindingsPath(path)) out.push({ layer, root: '<memory>', path });
        }
      }
      return out;
    },
    read: (ref) => files[ref.layer]?.[ref.path],
  };
}
