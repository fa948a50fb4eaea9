/**
 * The times a schedule names (`when`, `range`, `after`, `until`), read without dateutil: ISO-8601,
 * `YYYY-MM-DD HH:MM[:SS]`, `MM/DD/YYYY HH:MM`, a time of day (`23:00`, `11:00pm`, `11pm`) and a
 * weekday with a time (`Monday 5:00pm`). Forms without a zone are local time, as in Salt.
 */

/** A moment: fixed, or one that comes back every day (a time of day) or every week (a weekday). */
export type TimeSpec = { kind: 'at'; ms: number } | { kind: 'daily'; h: number; m: number; s: number; weekday?: number };

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** `HH:MM[:SS][am|pm]` or `Ham|pm`; undefined when it is not a time of day. */
function timeOfDay(text: string): { h: number; m: number; s: number } | undefined {
  const t = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/i.exec(text.trim());
  if (!t || (t[2] === undefined && t[4] === undefined)) return undefined;
  let h = Number(t[1]);
  const m = Number(t[2] ?? 0);
  const s = Number(t[3] ?? 0);
  const half = t[4]?.toLowerCase().replace(/\./g, '');
  if (half) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (half === 'pm' ? 12 : 0);
  }
  if (h > 23 || m > 59 || s > 59) return undefined;
  return { h, m, s };
}

function localDate(y: number, mo: number, d: number, tod: { h: number; m: number; s: number }): number | undefined {
  const date = new Date(y, mo - 1, d, tod.h, tod.m, tod.s);
  // Date rolls 2026-02-31 over into March: such a date is refused, not moved
  if (date.getFullYear() !== y || date.getMonth() !== mo - 1 || date.getDate() !== d) return undefined;
  return date.getTime();
}

/** Reads one time; undefined when the form is not one Brine knows. */
export function parseTimeSpec(value: unknown): TimeSpec | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : { kind: 'at', ms: value.getTime() };
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  // ISO-8601 with a zone: Date reads it exactly
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : { kind: 'at', ms };
  }
  const dated = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](.+))?$/.exec(text) ?? /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (.+))?$/.exec(text);
  if (dated) {
    const iso = dated[0].includes('-');
    const [y, mo, d] = iso ? [dated[1], dated[2], dated[3]] : [dated[3], dated[1], dated[2]];
    const tod = dated[4] === undefined ? { h: 0, m: 0, s: 0 } : timeOfDay(dated[4].replace(/\.\d+$/, ''));
    if (!tod) return undefined;
    const ms = localDate(Number(y), Number(mo), Number(d), tod);
    return ms === undefined ? undefined : { kind: 'at', ms };
  }
  const weekday = /^([a-z]+)\s+(.+)$/i.exec(text);
  if (weekday) {
    const i = WEEKDAYS.findIndex((w) => w === weekday[1]!.toLowerCase() || w.slice(0, 3) === weekday[1]!.toLowerCase());
    const tod = timeOfDay(weekday[2]!);
    return i < 0 || !tod ? undefined : { kind: 'daily', ...tod, weekday: i };
  }
  const tod = timeOfDay(text);
  return tod ? { kind: 'daily', ...tod } : undefined;
}

/** The spec's instance on today's date (a weekday's: today, or the next such day), as dateutil reads it. */
export function resolveTime(spec: TimeSpec, now: number): number {
  if (spec.kind === 'at') return spec.ms;
  const d = new Date(now);
  const ahead = spec.weekday === undefined ? 0 : (spec.weekday - d.getDay() + 7) % 7;
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + ahead, spec.h, spec.m, spec.s).getTime();
}

/** The first instance of the spec strictly after `after`; undefined when a fixed moment has passed. */
export function nextTime(spec: TimeSpec, after: number): number | undefined {
  if (spec.kind === 'at') return spec.ms > after ? spec.ms : undefined;
  const d = new Date(after);
  for (let day = 0; day <= 7; day++) {
    const c = new Date(d.getFullYear(), d.getMonth(), d.getDate() + day, spec.h, spec.m, spec.s);
    if (spec.weekday !== undefined && c.getDay() !== spec.weekday) continue;
    if (c.getTime() > after) return c.getTime();
  }
  return undefined;
}
