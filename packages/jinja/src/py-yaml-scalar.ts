/**
 * What PyYAML's emitter decides about a scalar before writing it: whether a plain text would read
 * back as another type (YAML 1.1's implicit resolvers), and which styles (plain, single-quoted)
 * its characters allow. py-yaml-dump.ts lays the scalars out from these answers.
 */

export const BREAKS = '\n\x85\u2028\u2029';
const SPACES = '\0 \t\r\n\x85\u2028\u2029';

/** PyYAML's implicit resolvers (YAML 1.1): a plain scalar matching one is not a string. */
export const IMPLICIT = [
  /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/,
  /^(?:<<)$/,
  /^(?:~|null|Null|NULL|)$/,
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/,
  /^(?:=)$/,
];

const [BOOL, FLOAT, INT, , NULL, TIMESTAMP] = IMPLICIT as [RegExp, RegExp, RegExp, RegExp, RegExp, RegExp, RegExp];

/**
 * IMPLICIT.some(re => re.test(text)), testing only the patterns the first character and the
 * length leave possible: most scalars a template dumps are words, which none can match past 5
 * characters (yes/no/on/off/true/false, null), and each regex test costs (a first one compiles).
 */
export function resolvesImplicitly(text: string): boolean {
  if (text === '') return true;
  const c = text.charCodeAt(0);
  // digits, + - . : the numbers and timestamps
  if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) return FLOAT.test(text) || INT.test(text) || TIMESTAMP.test(text);
  if (text.length > 5) return false;
  if (text === '<<' || text === '~' || text === '=') return true;
  return BOOL.test(text) || NULL.test(text);
}

export interface Analysis {
  empty: boolean;
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
}

function isPrintable(ch: string, allowUnicode: boolean): boolean {
  if (ch === '\n' || (ch >= '\x20' && ch <= '\x7e')) return true;
  return allowUnicode && (ch === '\x85' || (ch >= '\xa0' && ch <= '\ud7ff') || (ch >= '\ue000' && ch <= '\ufffd') || ch.length === 2) && ch !== '\ufeff';
}

const EMPTY: Analysis = { empty: true, multiline: false, flowPlain: false, blockPlain: true, singleQuoted: true };

export function analyze(s: string, allowUnicode = true): Analysis {
  if (s === '') return EMPTY;
  if (isAsciiWord(s)) return analyzeAscii(s);
  return isAscii(s) ? analyzeAsciiText(s) : analyzeChars(s, allowUnicode);
}

// a regex, not a loop: long texts (file contents, comments) are scanned natively
const ASCII = /^[\x00-\x7f]*$/;
const isAscii = (s: string): boolean => ASCII.test(s);

// analyzeChars' character classes over ASCII codes: 1 flow/block indicator first, 2 flow
// indicator after the first, 4 space (SPACES), 8 printable
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] =
    ('#,[]{}&*!|>\'"%@`'.includes(ch) ? 1 : 0) | (',?[]{}'.includes(ch) ? 2 : 0) | (SPACES.includes(ch) ? 4 : 0) | (isPrintable(ch, false) ? 8 : 0);
}

/** analyzeChars for an ASCII string, by character code: the same flags without a string per character. */
export function analyzeAsciiText(s: string): Analysis {
  const n = s.length;
  let blockInd = s.startsWith('---') || s.startsWith('...');
  let flowInd = blockInd;
  let lineBreaks = false;
  let special = false;
  let edgeSpace = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let followedByWs = n === 1 || (ASCII_CLASS[s.charCodeAt(1)]! & 4) !== 0;
  let prevSpace = false;
  let prevBreak = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const k = ASCII_CLASS[c]!;
    if (i === 0) {
      if (k & 1) flowInd = blockInd = true;
      if (c === 0x3f || c === 0x3a) {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (c === 0x2d && followedByWs) flowInd = blockInd = true;
    } else {
      if (k & 2) flowInd = true;
      if (c === 0x3a) {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (c === 0x23 && precededByWs) flowInd = blockInd = true;
    }
    if (!(k & 8)) special = true;
    if (c === 0x20) {
      if (i === 0 || i === n - 1) edgeSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (c === 0x0a) {
      lineBreaks = true;
      if (i === 0 || i === n - 1) edgeSpace = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = prevBreak = false;
    }
    precededByWs = (k & 4) !== 0;
    followedByWs = i + 2 >= n || (ASCII_CLASS[s.charCodeAt(i + 2)]! & 4) !== 0;
  }
  const plain = !(edgeSpace || breakSpace || spaceBreak || special || lineBreaks);
  return {
    empty: false,
    multiline: lineBreaks,
    flowPlain: plain && !flowInd,
    blockPlain: plain && !blockInd,
    singleQuoted: !(breakSpace || spaceBreak || special),
  };
}

/** Printable ASCII without a space or a line break: the most of keys and values a template dumps. */
const ASCII_WORD = /^[\x21-\x7e]*$/;
const isAsciiWord = (s: string): boolean => ASCII_WORD.test(s);

/** analyzeChars for an isAsciiWord string, without its per-character allocations: no space, break or special character. */
function analyzeAscii(s: string): Analysis {
  let blockInd = s.startsWith('---') || s.startsWith('...');
  let flowInd = blockInd;
  const c0 = s[0]!;
  const n = s.length;
  if ('#,[]{}&*!|>\'"%@`'.includes(c0)) flowInd = blockInd = true;
  if (c0 === '?' || c0 === ':') {
    flowInd = true;
    if (n === 1) blockInd = true;
  }
  if (c0 === '-' && n === 1) flowInd = blockInd = true;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    // , ? [ ] { }
    if (c === 0x2c || c === 0x3f || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) flowInd = true;
    else if (c === 0x3a) {
      flowInd = true;
      if (i === n - 1) blockInd = true;
    }
    // '#' is an indicator only after whitespace, and this string has none.
  }
  return { empty: false, multiline: false, flowPlain: !flowInd, blockPlain: !blockInd, singleQuoted: true };
}

const SURROGATE = /[\ud800-\udfff]/;

export function analyzeChars(s: string, allowUnicode: boolean): Analysis {
  let blockInd = false;
  let flowInd = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  if (s.startsWith('---') || s.startsWith('...')) blockInd = flowInd = true;
  // by code point as PyYAML reads; a text without surrogates is its own list of them (no array per scalar)
  const chars: ArrayLike<string> = SURROGATE.test(s) ? [...s] : s;
  let precededByWs = true;
  let followedByWs = chars.length === 1 || SPACES.includes(chars[1]);
  let prevSpace = false;
  let prevBreak = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) flowInd = blockInd = true;
      if ('?:'.includes(ch)) {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (ch === '-' && followedByWs) flowInd = blockInd = true;
    } else {
      if (',?[]{}'.includes(ch)) flowInd = true;
      if (ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (ch === '#' && precededByWs) flowInd = blockInd = true;
    }
    if (BREAKS.includes(ch)) lineBreaks = true;
    if (!isPrintable(ch, allowUnicode)) special = true;
    if (ch === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (BREAKS.includes(ch)) {
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = prevBreak = false;
    }
    precededByWs = SPACES.includes(ch);
    followedByWs = i + 2 >= chars.length || SPACES.includes(chars[i + 2]);
  }
  let flowPlain = true;
  let blockPlain = true;
  let singleQuoted = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) flowPlain = blockPlain = false;
  if (breakSpace) flowPlain = blockPlain = singleQuoted = false;
  if (spaceBreak || special) flowPlain = blockPlain = singleQuoted = false;
  if (lineBreaks) flowPlain = blockPlain = false;
  if (flowInd) flowPlain = false;
  if (blockInd) blockPlain = false;
  return { empty: false, multiline: lineBreaks, flowPlain, blockPlain, singleQuoted };
}
