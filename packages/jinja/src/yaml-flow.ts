/**
 * PyYAML reads a flow collection whose continuation lines are indented less than its block
 * parent (`key: {a: 1,\n  b: 2}` under a deeper key, or a long `{{ x | yaml }}` dump that PyYAML
 * wrapped at 80 columns); the `yaml` library refuses it. Inside a flow collection line breaks
 * and leading spaces only separate tokens (quoted scalars fold them away too), so moving the
 * continuation lines right of the collection's opening bracket keeps the meaning and the line
 * numbers. Used only after the strict parse failed with a flow-indentation error.
 */

interface ScanState {
  depth: number;
  /** The column of the outermost open bracket, where continuation lines go. */
  column: number;
  quote: '' | '"' | "'";
}

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && line[i] === ' ') i++;
  return i;
}

/** Scans `line` from `from` in flow context (or inside a quoted scalar); updates `st`. */
function scanFlow(line: string, from: number, st: ScanState): void {
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (st.quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') st.quote = '';
      continue;
    }
    if (st.quote === "'") {
      if (c === "'" && line[i + 1] === "'") i++;
      else if (c === "'") st.quote = '';
      continue;
    }
    if (c === '"' || c === "'") {
      // A quote opens a scalar only where a token starts (`it's` is plain text).
      if (i === from || ' \t[{,:'.includes(line[i - 1])) st.quote = c;
    } else if (c === '#' && (i === 0 || line[i - 1] === ' ')) return;
    else if (c === '{' || c === '[') st.depth++;
    else if ((c === '}' || c === ']') && st.depth > 0) {
      st.depth--;
      if (st.depth === 0) return;
    }
  }
}

/** Where a block line's value starts (after `- `, `? `, `key: `, anchors and tags). */
function valueStart(line: string, at: number): number {
  let i = at;
  for (;;) {
    if ((line[i] === '-' || line[i] === '?') && (line[i + 1] === ' ' || i + 1 === line.length)) {
      i = indentOf(line.slice(i + 1)) + i + 1;
      continue;
    }
    break;
  }
  // A `key:` on this line: the value follows it.
  let j = i;
  if (line[j] === '"' || line[j] === "'") {
    const q = line[j];
    j++;
    while (j < line.length) {
      if (q === '"' && line[j] === '\\') j += 2;
      else if (q === "'" && line[j] === "'" && line[j + 1] === "'") j += 2;
      else if (line[j] === q) break;
      else j++;
    }
    j++;
    if (line[j] === ':' && (line[j + 1] === ' ' || j + 1 === line.length)) i = j + 1;
  } else if (line[j] !== '{' && line[j] !== '[') {
    const m = /:(?: |$)/.exec(line.slice(j));
    if (m && !line.slice(j, j + m.index).includes(' #')) i = j + m.index + 1;
  }
  while (line[i] === ' ') i++;
  while ((line[i] === '&' || line[i] === '!') && line.indexOf(' ', i) > 0) {
    i = line.indexOf(' ', i);
    while (line[i] === ' ') i++;
  }
  return i;
}

/** The text with flow continuation lines moved right; undefined when nothing needed moving. */
export function reindentFlow(text: string): string | undefined {
  const lines = text.split('\n');
  const st: ScanState = { depth: 0, column: 0, quote: '' };
  let blockScalarIndent = -1;
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const indent = indentOf(line);
    if (blockScalarIndent >= 0) {
      if (line.trim() === '' || indent > blockScalarIndent) continue;
      blockScalarIndent = -1;
    }
    if (st.depth > 0 || st.quote !== '') {
      if (line.trim() !== '' && indent <= st.column) {
        lines[n] = ' '.repeat(st.column + 1) + line.slice(indent);
        changed = true;
      }
      const shift = lines[n].length - line.length;
      scanFlow(lines[n], indent + Math.max(0, shift), st);
      continue;
    }
    if (line.trim() === '' || line[indent] === '#') continue;
    const at = valueStart(line, indent);
    const c = line[at];
    if (c === '{' || c === '[') {
      st.column = at;
      scanFlow(line, at, st);
    } else if (c === '"' || c === "'") {
      st.column = at;
      scanFlow(line, at, st);
    } else if (c === '|' || c === '>') {
      blockScalarIndent = indent;
    }
  }
  return changed ? lines.join('\n') : undefined;
}
