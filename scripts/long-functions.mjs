// Lists the functions of packages/*/src longer than a limit (default 100 lines), longest first:
// `node scripts/long-functions.mjs [lines] [files...]`. Exits 1 when there is one: `npm run lint`
// runs it, so a function over 100 lines is split where a name would explain the piece.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const limit = Number(process.argv[2] ?? 100);
const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path.join(dir, e.name)] : [],
  );
const files =
  process.argv.length > 3
    ? process.argv.slice(3)
    : readdirSync('packages')
        .filter((p) => existsSync(path.join('packages', p, 'src')))
        .flatMap((p) => sources(path.join('packages', p, 'src')));
const long = [];
for (const file of files) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && n.body) {
      const from = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const lines = sf.getLineAndCharacterOfPosition(n.end).line - from + 1;
      const name = n.name?.getText() ?? (ts.isVariableDeclaration(n.parent) ? n.parent.name.getText() : '(anonymous)');
      if (lines > limit) long.push({ lines, at: `${file}:${from + 1}`, name });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
for (const f of long.sort((a, b) => b.lines - a.lines)) console.log(`${String(f.lines).padStart(4)}  ${f.at}  ${f.name}`);
if (long.length) {
  console.error(`long-functions: ${long.length} function(s) over ${limit} lines: split them where a name explains the piece`);
  process.exitCode = 1;
}
