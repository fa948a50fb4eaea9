/**
 * Shell-style globs with Python fnmatch semantics (`*`, `?`, `[seq]`, `[!seq]`), which is what
 * Salt uses for minion ids, grains in targets and SLS include globs. Compiled once per pattern.
 */
const cache = new Map<string, RegExp>();

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

export function globToRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re) return re;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '!') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j++;
      if (j >= pattern.length) {
        out += '\\[';
      } else {
        let body = pattern.slice(i + 1, j).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = '^' + body.slice(1);
        else if (body.startsWith('^')) body = '\\' + body;
        out += `[${body}]`;
        i = j;
      }
    } else out += escapeRe(c);
  }
  re = new RegExp(`^(?:${out})$`);
  if (cache.size > 10_000) cache.clear();
  cache.set(pattern, re);
  return re;
}

export function globMatch(value: string, pattern: string): boolean {
  if (!/[*?[]/.test(pattern)) return value === pattern;
  return globToRegExp(pattern).test(value);
}

export function isGlob(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}
