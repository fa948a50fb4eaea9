import { globMatch } from '@brine/compiler';

/** One `reactor:` entry: a tag glob and the reactor SLS files it renders, in order. */
export interface ReactorRule {
  glob: string;
  files: string[];
}

/** The `reactor:` option as rules (the config loader has checked each entry's shape). */
export function reactorRules(option: Array<Record<string, string | string[]>>): ReactorRule[] {
  return option.map((entry) => {
    const [glob, files] = Object.entries(entry)[0]!;
    return { glob, files: typeof files === 'string' ? [files] : [...files] };
  });
}

/**
 * Salt's name for a tag Brine fires under its own: reactors written for Salt match
 * `salt/job/<jid>/new`, `salt/job/<jid>/ret/<id>`, `salt/minion/<id>/start`, `salt/auth` and
 * `salt/key` unchanged. Undefined when Salt has no such event.
 */
export function saltTagOf(tag: string): string | undefined {
  if (tag === 'brine/auth') return 'salt/auth';
  if (tag === 'brine/key') return 'salt/key';
  const job = /^brine\/job\/([^/]+)\/(new|ret\/[^/]+)$/.exec(tag);
  if (job) return `salt/job/${job[1]}/${job[2]}`;
  const start = /^brine\/minion\/([^/]+)\/start$/.exec(tag);
  if (start) return `salt/minion/${start[1]}/start`;
  return undefined;
}

/** A rule matching an event, with the tag it matched under (Brine's or Salt's name). */
export interface RuleMatch {
  rule: ReactorRule;
  tag: string;
}

/** The rules an event matches, in config order; each rule once, under the name it matched. */
export function matchRules(rules: ReactorRule[], tag: string): RuleMatch[] {
  const salt = saltTagOf(tag);
  const out: RuleMatch[] = [];
  for (const rule of rules) {
    if (globMatch(tag, rule.glob)) out.push({ rule, tag });
    else if (salt !== undefined && globMatch(salt, rule.glob)) out.push({ rule, tag: salt });
  }
  return out;
}

/**
 * Salt's data for its alias of a Brine event, where the shapes differ: `salt/auth` says
 * `act: accept|pend|reject` and `result`, `salt/key` `act: accept|reject|delete`, a job's return
 * `cmd: _return`, a minion's start `cmd: _minion_event`. Brine's own keys stay beside them.
 */
export function saltDataOf(tag: string, data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const d = data as Record<string, unknown>;
  const acts: Record<string, string> = { accepted: 'accept', pending: 'pend', rejected: 'reject', denied: 'reject', deleted: 'delete' };
  if (tag === 'salt/auth' || tag === 'salt/key') {
    const act = typeof d.act === 'string' ? (acts[d.act] ?? d.act) : d.act;
    return { ...d, act, result: d.act !== 'auth_failed' };
  }
  if (/^salt\/job\/[^/]+\/ret\//.test(tag)) return { cmd: '_return', ...d };
  if (/^salt\/minion\/[^/]+\/start$/.test(tag)) return { cmd: '_minion_event', data: `Minion ${String(d.id)} started`, ...d };
  return data;
}

/** Tag namespaces only the master fires into: a minion's or operator's event there is refused. */
export const RESERVED_TAG_PREFIXES = ['salt/', 'brine/'];

/** Why a tag may not be fired by a minion or operator, or undefined when it may. */
export function refusedTag(tag: string): string | undefined {
  if (tag.length === 0) return 'the tag is empty';
  if (tag.length > 512) return 'the tag is longer than 512 characters';
  if (/[\u0000-\u001f\u007f]/.test(tag)) return 'the tag holds control characters';
  const prefix = RESERVED_TAG_PREFIXES.find((p) => tag.startsWith(p));
  if (prefix !== undefined) return `'${prefix}' is the master's own namespace`;
  return undefined;
}

/**
 * Each rule's reactions in the last minute, on this master: a rule past `rate` reacts no more
 * until its window has room (a loop that escapes the chain depth, such as a minion firing an
 * event from a reaction of a reaction of its own, still stops here).
 */
export class RuleRate {
  private readonly times = new Map<string, number[]>();
  private readonly rate: number;
  private readonly now: () => number;
  constructor(rate: number, now: () => number = Date.now) {
    this.rate = rate;
    this.now = now;
  }

  /** Takes one reaction for `glob`: false (and nothing taken) when the last minute holds `rate` already. */
  take(glob: string): boolean {
    const t = this.now();
    const recent = (this.times.get(glob) ?? []).filter((x) => t - x < 60_000);
    if (recent.length >= this.rate) {
      this.times.set(glob, recent);
      return false;
    }
    recent.push(t);
    this.times.set(glob, recent);
    return true;
  }

  count(glob: string): number {
    return this.times.get(glob)?.length ?? 0;
  }
}
