/**
 * Salt's file.replace on text: a Python regex (MULTILINE by default) replaced everywhere, with
 * Python's replacement syntax, and the content appended or prepended where nothing matched.
 * The file.replace state and the modules that edit config files through it (locale) share it.
 */
const FLAG_BITS: Record<string, [number, string]> = {
  IGNORECASE: [2, 'i'],
  I: [2, 'i'],
  MULTILINE: [8, 'm'],
  M: [8, 'm'],
  DOTALL: [16, 's'],
  S: [16, 's'],
  UNICODE: [32, 'u'],
  U: [32, 'u'],
};

/** Python re flags (names or the integer) as JS flags; Salt's default is MULTILINE. */
export function jsFlags(flags: unknown): string {
  if (flags === undefined || flags === null) return 'm';
  const out = new Set<string>();
  if (typeof flags === 'number') {
    for (const [bit, f] of Object.values(FLAG_BITS)) if (flags & bit) out.add(f);
  } else {
    const names = Array.isArray(flags) ? flags.map(String) : String(flags).split(/[|,\s]+/);
    for (const n of names) {
      const hit = FLAG_BITS[n.trim().toUpperCase()];
      if (hit) out.add(hit[1]);
    }
  }
  return [...out].join('');
}

/** Python replacement syntax (\1, \g<1>, \g<name>) in JS form; `$` is literal in Python. */
export function jsReplacement(repl: string): string {
  let out = '';
  for (let i = 0; i < repl.length; i++) {
    const ch = repl[i];
    if (ch === '$') out += '$$';
    else if (ch === '\\' && i + 1 < repl.length) {
      const next = repl[i + 1];
      const g = /^g<([^>]+)>/.exec(repl.slice(i + 1));
      if (g) {
        out += /^\d+$/.test(g[1]) ? `$${g[1]}` : `$<${g[1]}>`;
        i += g[0].length;
      } else if (/\d/.test(next)) {
        out += `$${next}`;
        i++;
      } else if (next === 'n') {
        out += '\n';
        i++;
      } else if (next === 't') {
        out += '\t';
        i++;
      } else if (next === '\\') {
        out += '\\';
        i++;
      } else out += ch;
    } else out += ch;
  }
  return out;
}

export interface ReplaceOptions {
  flags?: unknown;
  /** At most this many replacements (0: all). */
  count?: number;
  backslashLiteral?: boolean;
  appendIfNotFound?: boolean;
  prependIfNotFound?: boolean;
  notFoundContent?: string;
}

/** The text after the replacement; throws on an invalid regular expression. */
export function replaceText(before: string, pattern: string, replacement: string, opts: ReplaceOptions = {}): string {
  const re = new RegExp(pattern, `g${jsFlags(opts.flags)}`);
  const count = opts.count ?? 0;
  const repl = opts.backslashLiteral ? replacement.replace(/\$/g, '$$$$') : jsReplacement(replacement);
  let n = 0;
  let found = false;
  let after = before.replace(re, (...m: unknown[]) => {
    found = true;
    if (count > 0 && n >= count) return String(m[0]);
    n++;
    const groups = m.filter((x) => typeof x === 'string' || x === undefined).slice(0, -1);
    const named = typeof m[m.length - 1] === 'object' ? (m[m.length - 1] as Record<string, string>) : undefined;
    return repl.replace(/\$(\$|\d+|<([^>]+)>)/g, (_all, what: string, gname?: string) => {
      if (what === '$') return '$';
      if (gname !== undefined) return named?.[gname] ?? '';
      return String(groups[Number(what)] ?? '');
    });
  });
  const content = opts.notFoundContent ?? replacement;
  if (!found && opts.appendIfNotFound && !before.includes(content)) {
    after = before + (before.length && !before.endsWith('\n') ? '\n' : '') + content + '\n';
  } else if (!found && opts.prependIfNotFound && !before.includes(content)) {
    after = content + '\n' + before;
  }
  return after;
}
