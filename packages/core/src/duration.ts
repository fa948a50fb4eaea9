/** `8h`, `30m`, `1d`, `45s` or plain seconds, as seconds; undefined for anything else or zero. */
export function durationSeconds(v: string | number): number | undefined {
  if (typeof v === 'number') return v > 0 ? v : undefined;
  const m = /^(\d+)\s*([smhd]?)$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return n > 0 ? n : undefined;
}
