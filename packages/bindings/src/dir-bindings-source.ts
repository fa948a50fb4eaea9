import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isBindingsPath, LAYERS, type BindingsFileRef, type BindingsSource, type Layer } from './bindings-source.js';

/**
 * Bindings on disk: `{site: [dirs], modules: [dirs]}` (the master's `bindings_roots`). Each dir
 * holds modules (`<dir>/<module>/bindings/...yaml`) and may hold a `bindings/` folder of its own.
 * Only `bindings/` folders are walked, so a root can be the same directory as a file root.
 */
export function dirBindingsSource(layers: Partial<Record<Layer, string[]>>): BindingsSource {
  return {
    list() {
      const out: BindingsFileRef[] = [];
      for (const layer of LAYERS) {
        for (const root of layers[layer] ?? []) {
          const found: string[] = [];
          const walk = (dir: string, rel: string) => {
            for (const name of entries(dir)) {
              const full = join(dir, name);
              const relPath = rel ? `${rel}/${name}` : name;
              if (isDir(full)) walk(full, relPath);
              else if (isBindingsPath(relPath)) found.push(relPath);
            }
          };
          if (isDir(join(root, 'bindings'))) walk(join(root, 'bindings'), 'bindings');
          for (const mod of entries(root)) {
            if (mod === 'bindings') continue;
            const dir = join(root, mod, 'bindings');
            if (isDir(dir)) walk(dir, `${mod}/bindings`);
          }
          for (const path of found.sort()) out.push({ layer, root, path });
        }
      }
      return out;
    },
    read(ref) {
      try {
        return readFileSync(join(ref.root, ...ref.path.split('/')), 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => !n.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
