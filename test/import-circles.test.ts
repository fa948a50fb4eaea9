/** No import circles inside a package's sources (type-only imports count: they tie the files as much). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The files of this package a source imports (relative specifiers, `./x.js` written for `./x.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const spec = path.resolve(path.dirname(file), m[1]!);
    const ts = spec.replace(/\.js$/, '.ts');
    const found = [ts, path.join(spec, 'index.ts')].find((p) => existsSync(p) && p.endsWith('.ts'));
    if (found) out.push(found);
  }
  return out;
}

/** Every circle found by a depth-first walk, each named once by the files on it. */
function circles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const found = new Map<string, string[]>();
  const done = new Set<string>();
  const walk = (f: string, stack: string[]) => {
    const at = stack.indexOf(f);
    if (at >= 0) {
      const loop = stack.slice(at);
      found.set([...loop].sort().join('|'), loop);
      return;
    }
    if (done.has(f)) return;
    for (const next of graph.get(f) ?? []) walk(next, [...stack, f]);
    done.add(f);
  };
  for (const f of files) walk(f, []);
  return [...found.values()].map((loop) => loop.map((f) => path.relative(root, f)));
}

const packages = readdirSync(path.join(root, 'packages')).filter((p) => existsSync(path.join(root, 'packages', p, 'src')));
t.ok(packages.length >= 11, `the packages are found (${packages.length})`);
for (const pkg of packages) {
  t.test(pkg, async (t) => {
    const files = sources(path.join(root, 'packages', pkg, 'src'));
    t.ok(files.length > 0, 'has sources');
    t.same(circles(files), [], 'no import circles');
  });
}
