import { isJid } from '@brine/protocol';

/**
 * Job ids the way Salt makes them: the UTC time as YYYYMMDDhhmmssffffff (microseconds), which
 * sorts by time. Two jobs in the same microsecond, or a clock that steps back, would collide, so
 * each new jid is at least one more than the last one handed out (including the last stored one).
 */
export class JidGenerator {
  private last: bigint;

  constructor(lastKnown?: string | null) {
    this.last = lastKnown && isJid(lastKnown) ? BigInt(lastKnown) : 0n;
  }

  next(now: Date = new Date()): string {
    const micros = String(now.getUTCMilliseconds() * 1000 + Math.floor((performance.now() % 1) * 1000)).padStart(6, '0');
    const stamp =
      String(now.getUTCFullYear()).padStart(4, '0') +
      String(now.getUTCMonth() + 1).padStart(2, '0') +
      String(now.getUTCDate()).padStart(2, '0') +
      String(now.getUTCHours()).padStart(2, '0') +
      String(now.getUTCMinutes()).padStart(2, '0') +
      String(now.getUTCSeconds()).padStart(2, '0') +
      micros;
    let jid = BigInt(stamp);
    if (jid <= this.last) jid = this.last + 1n;
    this.last = jid;
    return jid.toString().padStart(20, '0');
  }
}

/** The time a jid stands for, as ISO 8601. */
export function jidToIso(jid: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})\d{3}$/.exec(jid);
  if (!m) return '';
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z`;
}

/** The smallest jid of a given time (for "since T" queries). */
export function jidFromTime(t: Date): string {
  const iso = t.toISOString(); // YYYY-MM-DDThh:mm:ss.mmmZ
  return iso.replace(/[-:T.Z]/g, '').slice(0, 17) + '000';
}

/**
 * A point in time from `7d`, `12h`, `30m`, `45s`, `2w` (that long ago) or an ISO 8601 time;
 * undefined when the text is neither.
 */
export function parseSince(text: string, now = Date.now()): Date | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(text.trim());
  if (m) {
    const unit = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
    return new Date(now - Number(m[1]) * unit * 1000);
  }
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : new Date(t);
}
