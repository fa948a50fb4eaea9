/**
 * Argument binding references (Idem's `${<state>:<id>[<name>]:<prop>[i]:...}`): parsed by the
 * compiler (to add `arg_bind` requisites) and by the runtime (to substitute values from the
 * referenced state's `new_state`), so the grammar lives here.
 *
 * Grammar: `${` state `:` id [ `[` name `]` ] `:` step ( `:` step )* `}` where a step is a
 * property name followed by any number of `[<integer>]` or `[*]`. Text with fewer than three
 * colon-separated parts (shell's `${HOME}`, `${x:-default}`) is not a reference.
 */

export type ArgBindStep = { key: string } | { index: number } | { all: true };

export interface ArgBindRef {
  /** The reference as written, `${...}` included. */
  text: string;
  state: string;
  id: string;
  /** The resource name from `<id>[<name>]`, when given. */
  resource?: string;
  path: ArgBindStep[];
  /** Where the reference sits in the string it was found in. */
  start: number;
  end: number;
}

/** A `${...}` that has the shape of a reference (two colons or more) but cannot be parsed. */
export interface ArgBindSyntaxError {
  text: string;
  reason: string;
}

function parseSteps(text: string): ArgBindStep[] | string {
  const steps: ArgBindStep[] = [];
  for (const part of text.split(':')) {
    const m = /^([^[\]]*)((?:\[[^\]]*\])*)$/.exec(part);
    if (!m) return `bad property step '${part}'`;
    if (m[1]) steps.push({ key: m[1] });
    else if (!m[2]) return 'empty property step';
    for (const idx of m[2]!.match(/\[[^\]]*\]/g) ?? []) {
      const inner = idx.slice(1, -1).trim();
      if (inner === '*') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else return `bad index '${idx}' (a number or *)`;
    }
  }
  return steps;
}

/** One `${...}` body (without the braces): a reference, an error, or not a reference at all. */
function parseBody(body: string): Omit<ArgBindRef, 'text' | 'start' | 'end'> | string | undefined {
  if (body.split(':').length < 3) return undefined;
  const c1 = body.indexOf(':');
  const state = body.slice(0, c1).trim();
  let rest = body.slice(c1 + 1);
  let resource: string | undefined;
  const idEnd = rest.search(/[:[]/);
  if (idEnd < 0) return undefined;
  const id = rest.slice(0, idEnd).trim();
  if (rest[idEnd] === '[') {
    const close = rest.indexOf(']', idEnd);
    if (close < 0) return `unclosed '[' after ID '${id}'`;
    resource = rest.slice(idEnd + 1, close);
    rest = rest.slice(close + 1);
    if (!rest.startsWith(':')) return `expected ':' after '${id}[${resource}]'`;
    rest = rest.slice(1);
  } else {
    rest = rest.slice(idEnd + 1);
  }
  if (!state) return 'empty state path';
  if (!id) return 'empty ID';
  if (!rest) return 'no property path';
  const steps = parseSteps(rest);
  if (typeof steps === 'string') return steps;
  return resource === undefined ? { state, id, path: steps } : { state, id, resource, path: steps };
}

/** Every reference in a string, in order, and the `${...}` that look like one but do not parse. */
export function parseArgBindRefs(s: string): { refs: ArgBindRef[]; errors: ArgBindSyntaxError[] } {
  const refs: ArgBindRef[] = [];
  const errors: ArgBindSyntaxError[] = [];
  let from = 0;
  for (;;) {
    const start = s.indexOf('${', from);
    if (start < 0) break;
    const close = s.indexOf('}', start + 2);
    if (close < 0) break;
    const text = s.slice(start, close + 1);
    const parsed = parseBody(s.slice(start + 2, close));
    if (typeof parsed === 'string') errors.push({ text, reason: parsed });
    else if (parsed) refs.push({ ...parsed, text, start, end: close + 1 });
    from = close + 1;
  }
  return { refs, errors };
}

/** A place in an argument value: `config:listen[0]` style, for messages. */
export interface ArgBindUse {
  /** The argument (top-level key) the reference is in. */
  arg: string;
  /** The path inside the argument value, for messages (`config:hosts[1]`). */
  where: string;
  ref: ArgBindRef;
  /** The string is exactly the reference: the value keeps its type. */
  whole: boolean;
}

/** Walks an argument value and reports every reference in its strings (keys are not searched). */
export function findArgBindRefs(
  arg: string,
  value: unknown,
  out: { uses: ArgBindUse[]; errors: Array<ArgBindSyntaxError & { where: string }> } = { uses: [], errors: [] },
  where = arg,
): { uses: ArgBindUse[]; errors: Array<ArgBindSyntaxError & { where: string }> } {
  if (typeof value === 'string') {
    if (!value.includes('${')) return out;
    const { refs, errors } = parseArgBindRefs(value);
    for (const ref of refs) {
      out.uses.push({ arg, where, ref, whole: refs.length === 1 && ref.start === 0 && ref.end === value.length });
    }
    for (const e of errors) out.errors.push({ ...e, where });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => findArgBindRefs(arg, v, out, `${where}[${i}]`));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) findArgBindRefs(arg, v, out, `${where}:${k}`);
  }
  return out;
}

/** `{<state>: <id>}` or `{<state>: <id>[<name>]}`: the shape of one `arg_bind` requisite entry. */
export function argBindEntryValue(ref: Pick<ArgBindRef, 'id' | 'resource'>): string {
  return ref.resource === undefined ? ref.id : `${ref.id}[${ref.resource}]`;
}

/** Splits an `arg_bind` entry value back into ID and resource name. */
export function parseArgBindEntryValue(value: string): { id: string; resource?: string } {
  const m = /^(.*?)\[(.*)\]$/s.exec(value);
  return m ? { id: m[1]!, resource: m[2]! } : { id: value };
}

/**
 * Follows a property path into a state's `new_state`. `[*]` maps the rest of the path over every
 * element. Answers the value, or where the path stopped leading anywhere.
 */
export function followArgBindPath(root: unknown, path: ArgBindStep[]): { value: unknown } | { missing: string } {
  let cur: unknown = root;
  let walked = '';
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    if ('all' in step) {
      if (!Array.isArray(cur)) return { missing: `${walked || 'new_state'} is not a list` };
      const values: unknown[] = [];
      for (const el of cur) {
        const sub = followArgBindPath(el, path.slice(i + 1));
        if ('missing' in sub) return { missing: `${walked}[*]: ${sub.missing}` };
        values.push(sub.value);
      }
      return { value: values };
    }
    if ('index' in step) {
      if (!Array.isArray(cur)) return { missing: `${walked || 'new_state'} is not a list` };
      const idx = step.index < 0 ? cur.length + step.index : step.index;
      if (idx < 0 || idx >= cur.length) return { missing: `${walked}[${step.index}] is out of range` };
      cur = cur[idx];
      walked += `[${step.index}]`;
      continue;
    }
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !(step.key in cur)) {
      return { missing: `property '${walked ? `${walked}:` : ''}${step.key}' not found` };
    }
    cur = (cur as Record<string, unknown>)[step.key];
    walked += walked ? `:${step.key}` : step.key;
  }
  return { value: cur };
}
