import { existsSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import type { CommandRunner } from '@brine/core';

/**
 * The system time zone and hardware clock as Salt's timezone module reads and sets them on
 * Debian: timedatectl where it is installed, else /etc/timezone, the /etc/localtime link,
 * /etc/default/rcS and /etc/adjtime.
 */
export interface TimezoneHost {
  cmd: CommandRunner;
  /** Where the files live (default /etc); tests point it at a temp dir. */
  etc?: string;
  /** The zone files (default /usr/share/zoneinfo). */
  zoneinfo?: string;
  /** Whether timedatectl is installed (Salt checks the PATH). */
  timedatectl: boolean;
}

/** Salt's CommandExecutionError / SaltInvocationError: the message goes into the state's comment. */
export class TimezoneError extends Error {}

const etcOf = (h: TimezoneHost) => h.etc ?? '/etc';
const zoneFile = (h: TimezoneHost, zone: string) => `${h.zoneinfo ?? '/usr/share/zoneinfo'}/${zone}`;

async function timedatectl(h: TimezoneHost): Promise<string> {
  const r = await h.cmd.run(['timedatectl']);
  if (r.retcode !== 0) throw new TimezoneError(`timedatectl failed: ${r.stderr}`);
  return r.stdout;
}

export async function getZone(h: TimezoneHost): Promise<string> {
  if (h.timedatectl) {
    const out = await timedatectl(h);
    for (const line of out.split('\n')) {
      const m = /Time ?zone:\s+(\S+)/.exec(line.trim());
      if (m) return m[1]!;
    }
    throw new TimezoneError(`Failed to parse timedatectl output: ${out}\nPlease file an issue with SaltStack`);
  }
  const file = `${etcOf(h)}/timezone`;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new TimezoneError(`Problem reading timezone file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Whether /etc/localtime holds the same bytes as the zone's file. */
export function zoneCompare(h: TimezoneHost, zone: string): boolean {
  const zonePath = zoneFile(h, zone);
  const local = `${etcOf(h)}/localtime`;
  let want: Buffer;
  try {
    want = readFileSync(zonePath);
  } catch {
    throw new TimezoneError(`Can't find a local timezone "${zone}"`);
  }
  let have: Buffer;
  try {
    have = readFileSync(local);
  } catch (e) {
    throw new TimezoneError(`Failed to read ${local} to determine current timezone: ${(e as Error).message}`);
  }
  return have.equals(want);
}

/** 'UTC' or 'localtime' (or adjtime's last line, as Salt returns it; null without an RTC). */
export async function getHwclock(h: TimezoneHost): Promise<string | null> {
  if (h.timedatectl) {
    const out = await timedatectl(h);
    for (const line of out.split('\n')) {
      if (line.trim().toLowerCase().includes('rtc in local tz')) return line.split(':').pop()!.trim().toLowerCase() === 'yes' ? 'localtime' : 'UTC';
    }
    throw new TimezoneError(`Failed to parse timedatectl output: ${out}\nPlease file an issue with SaltStack`);
  }
  const rcS = `${etcOf(h)}/default/rcS`;
  if (existsSync(rcS)) {
    for (const line of readFileSync(rcS, 'utf8').split('\n')) {
      if (/^\s*#/.test(line) || !line.includes('UTC=')) continue;
      return line.split('=').pop()!.toLowerCase() === 'yes' ? 'UTC' : 'localtime';
    }
  }
  const adjtime = `${etcOf(h)}/adjtime`;
  if (existsSync(adjtime)) {
    const lines = readFileSync(adjtime, 'utf8').replace(/\n$/, '').split('\n');
    return lines[lines.length - 1] ?? '';
  }
  if (existsSync('/dev/rtc')) throw new TimezoneError(`Unable to get hwclock timezone from ${adjtime}`);
  return null;
}

function relink(h: TimezoneHost, zonePath: string): void {
  const local = `${etcOf(h)}/localtime`;
  try {
    unlinkSync(local);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  symlinkSync(zonePath, local);
}

/** Salt's set_zone: true, or the reason it could not (a string, as Salt returns it). */
export async function setZone(h: TimezoneHost, zone: string): Promise<true | string> {
  if (h.timedatectl) await h.cmd.run(['timedatectl', 'set-timezone', zone]);
  const zonePath = zoneFile(h, zone);
  if (!existsSync(zonePath)) return `Zone does not exist: ${zonePath}`;
  relink(h, zonePath);
  writeFileSync(`${etcOf(h)}/timezone`, `${zone.trim()}\n`);
  return true;
}

/** Salt's set_hwclock for 'UTC' or 'localtime'. */
export async function setHwclock(h: TimezoneHost, clock: string): Promise<boolean> {
  if (h.timedatectl) {
    const r = await h.cmd.run(['timedatectl', 'set-local-rtc', clock === 'localtime' ? 'true' : 'false']);
    return r.retcode === 0;
  }
  const zonePath = zoneFile(h, await getZone(h));
  if (!existsSync(zonePath)) throw new TimezoneError(`Zone '${zonePath}' does not exist`);
  relink(h, zonePath);
  const rcS = `${etcOf(h)}/default/rcS`;
  if ((clock === 'UTC' || clock === 'localtime') && existsSync(rcS)) {
    const text = readFileSync(rcS, 'utf8');
    const next = text.replace(/^UTC=.*$/gm, clock === 'UTC' ? 'UTC=yes' : 'UTC=no');
    if (next !== text) writeFileSync(rcS, next);
  }
  return true;
}
