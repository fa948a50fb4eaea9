/**
 * Golden cases for the render stage: each folder under golden/render has an `in/` tree, an
 * optional `context.json` ({path, sls, grains, pillar, params}) and `expected.json` with either
 * `high` (plus optional `positions`: id -> {pos: [line, col], states, args}) or `diagnostics`
 * (code, and where given file, line, column and a substring of the message).
 */
import t from 'tap';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSls } from '../src/render/index.js';
import { memoryTree } from '../src/state-tree.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), 'golden', 'render');

function readTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files[relative(dir, p).split('\\').join('/')] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return files;
}

type Pos = [number, number];
interface Expected {
  high?: unknown;
  positions?: Record<string, { pos?: Pos; states?: Record<string, Pos>; args?: Record<string, Pos> }>;
  diagnostics?: Array<{ code: string; file?: string; line?: number; column?: number; message?: string }>;
}

let cases = 0;
for (const name of readdirSync(root).sort()) {
  cases++;
  t.test(name, async (t) => {
    const dir = join(root, name);
    const ctxFile = join(dir, 'context.json');
    const ctx = existsSync(ctxFile) ? JSON.parse(readFileSync(ctxFile, 'utf8')) : {};
    const expected: Expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
    const files = readTree(join(dir, 'in'));
    const tree = memoryTree({ base: files });
    const path: string = ctx.path ?? 'main.sls';
    const out = renderSls({
      tree,
      env: 'base',
      path,
      sls:
        ctx.sls ??
        path
          .replace(/(\/init)?\.sls$/, '')
          .split('/')
          .join('.'),
      text: files[path],
      context: { grains: ctx.grains ?? { id: 'anchor' }, pillar: ctx.pillar ?? {}, params: ctx.params ?? {} },
    });
    if (expected.diagnostics) {
      t.equal(out.high, undefined, 'no high data');
      t.equal(out.diagnostics.length, expected.diagnostics.length, 'diagnostic count');
      expected.diagnostics.forEach((want, i) => {
        const got = out.diagnostics[i];
        t.equal(got?.code, want.code, 'code');
        if (want.file !== undefined) t.equal(got?.file, want.file, 'file');
        if (want.line !== undefined) t.equal(got?.line, want.line, 'line');
        if (want.column !== undefined) t.equal(got?.column, want.column, 'column');
        if (want.message !== undefined) t.match(got?.message, want.message, 'message');
      });
      return;
    }
    t.same(out.diagnostics, [], 'no diagnostics');
    t.same(out.high, expected.high, 'high data');
    t.same(JSON.stringify(Object.keys(out.high ?? {})), JSON.stringify(Object.keys(expected.high as object)), 'key order');
    for (const [id, want] of Object.entries(expected.positions ?? {})) {
      const got = out.positions.ids[id];
      const pair = (p: { line: number; column: number } | undefined) => (p ? [p.line, p.column] : undefined);
      if (want.pos) t.same(pair(got?.pos), want.pos, `${id} position`);
      for (const [k, v] of Object.entries(want.states ?? {})) t.same(pair(got?.states[k]), v, `${id} ${k} position`);
      for (const [k, v] of Object.entries(want.args ?? {})) t.same(pair(got?.args[k]), v, `${id} ${k} position`);
    }
  });
}
// an empty or moved fixture folder must fail, not pass with nothing run
t.ok(cases >= 11, `at least 11 render golden cases (found ${cases})`);
