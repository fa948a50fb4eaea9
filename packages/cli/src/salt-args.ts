import { yamlLib } from '@brine/core';

/**
 * Salt-style command arguments: positional args and `key=value` pairs, each value read as YAML
 * the way salt-call does (`test=True` is a boolean, `port=80` a number, `pillar='{"a": 1}'` a dict).
 */
export interface SaltArgs {
  args: unknown[];
  kwargs: Record<string, unknown>;
}

/** A word YAML reads as itself: a name such as `apache.config` or `a,b` (not y/n, on/off, null, e3...). */
const PLAIN_WORD = /^[A-Za-z_][\w.,/-]*$/;
const YAML_WORD = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|[eE]-?\d+)$/;

/** The booleans `test=True` and the like spell: read as the yaml library reads them, without loading it. */
const BOOLEANS: Record<string, boolean> = { True: true, true: true, TRUE: true, False: false, false: false, FALSE: false };

export function yamlifyArg(text: string): unknown {
  if (text === '') return '';
  if (Object.hasOwn(BOOLEANS, text)) return BOOLEANS[text];
  // SLS and function names need no YAML parser (whose load costs a `brine local` start)
  if (PLAIN_WORD.test(text) && !YAML_WORD.test(text)) return text;
  return yamlifyThroughYaml(text);
}

/** yamlifyArg without the plain-word shortcut: every word through the yaml library. */
export function yamlifyThroughYaml(text: string): unknown {
  try {
    const v = yamlLib().parse(text, { version: '1.1' }) as unknown;
    // a jid or any long number stays text rather than lose digits
    if (typeof v === 'number' && !Number.isSafeInteger(v) && /^\d+$/.test(text.trim())) return text;
    // A plain word that YAML reads as null (`~`, `null`) stays a string unless it really is null.
    if (v === null && !/^(~|null|None)$/i.test(text)) return text;
    if (v === null && text === 'None') return null;
    return v;
  } catch {
    return text;
  }
}

export function parseSaltArgs(words: string[]): SaltArgs {
  const out: SaltArgs = { args: [], kwargs: {} };
  for (const w of words) {
    const m = /^([A-Za-z_][\w.-]*)=([\s\S]*)$/.exec(w);
    if (m) out.kwargs[m[1]!] = yamlifyArg(m[2]!);
    else out.args.push(yamlifyArg(w));
  }
  return out;
}
