import { yamlLib } from '@brine/core';

/** Characters the yaml lexer adds to its tokens that are not in the source. */
const CONTROL = new Set(['\u0002', '\u0018', '\u001f']);
const QUICK = /[&*][\w-]+:/;
const SPLIT = /^([&*][A-Za-z0-9_-]+)(:.*)$/s;

/**
 * PyYAML ends an anchor or alias name at the first character that is not a letter, digit, `-`
 * or `_`: `&colorcolumn: 80` is an anchored empty (None) key with the value 80. YAML 1.2, and so
 * the yaml package, reads `colorcolumn:` as the name. A space after the name gives PyYAML's
 * reading; only anchor and alias tokens change (never a quoted or block scalar).
 */
export function pyAnchorNames(text: string): string {
  if (!QUICK.test(text)) return text;
  let pos = 0;
  const cuts: number[] = [];
  for (const token of new (yamlLib().Lexer)().lex(text)) {
    if (token.length === 1 && CONTROL.has(token)) continue;
    const m = (token[0] === '&' || token[0] === '*') && SPLIT.exec(token);
    if (m) cuts.push(pos + m[1]!.length);
    pos += token.length;
  }
  if (cuts.length === 0) return text;
  let out = '';
  let from = 0;
  for (const at of cuts) {
    out += `${text.slice(from, at)} `;
    from = at;
  }
  return out + text.slice(from);
}
