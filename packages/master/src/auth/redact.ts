/** Argument names whose values never reach the audit trail. */
const SECRET = /pass|token|secret|credential|private|^key$|bindpw/i;

/**
 * A call's arguments as the audit trail keeps them: passwords, tokens and pillar values passed
 * as arguments (`pillar=...`) replaced by a marker, and bounded so a large body stays a summary.
 */
export function redact(v: unknown, depth = 0): unknown {
  if (depth > 6) return '[…]';
  if (typeof v === 'string') return v.length > 512 ? `${v.slice(0, 512)}…` : v;
  if (Array.isArray(v)) return v.slice(0, 50).map((x) => redact(x, depth + 1));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v).slice(0, 50)) {
      if (SECRET.test(k)) out[k] = '[redacted]';
      else if (k === 'pillar') out[k] = '[redacted pillar]';
      // a positional `pillar={...}` argument as the CLI passes it
      else out[k] = redact(x, depth + 1);
    }
    return out;
  }
  return v;
}

/** The same for Salt's positional `key=value` words. */
export function redactArgs(args: unknown): unknown {
  if (!Array.isArray(args)) return redact(args);
  return args.map((a) => (typeof a === 'string' && /^(pillar|[^=]*(pass|token|secret)[^=]*)=/i.test(a) ? `${a.split('=')[0]}=[redacted]` : redact(a, 1)));
}
