import { isIP } from 'node:net';
import { minionErrors } from './errors.js';

/** One master the minion may connect to. */
export interface MasterAddress {
  host: string;
  port: number;
}

/** `host:port`, with brackets around an IPv6 address (what logs and errors show). */
export function formatMaster(m: MasterAddress): string {
  return `${m.host.includes(':') ? `[${m.host}]` : m.host}:${m.port}`;
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/;

/**
 * `master:` as the minion config gives it: one entry, or a list for failover. An entry is a host
 * name or address, `host:port`, or `[v6]:port`; without a port it takes `master_port`. A bad
 * entry is a config error naming the file and the entry, so an operator finds it before the
 * minion quietly fails to reach that master.
 */
export function parseMasters(value: unknown, defaultPort: number, file: string): MasterAddress[] {
  const fail = (detail: string) => minionErrors.make('BRINE_ERR_MINION_CONFIG', { file, detail });
  const single = !Array.isArray(value);
  const entries: unknown[] = single ? [value] : value;
  if (entries.length === 0) throw fail("master: the list is empty; give at least one master as 'host' or 'host:port'");
  const out: MasterAddress[] = [];
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const where = single ? 'master' : `master[${i}]`;
    if (typeof entry !== 'string') throw fail(`${where}: ${JSON.stringify(entry)} is not a string; give 'host' or 'host:port'`);
    const m = parseEntry(entry.trim(), defaultPort);
    if (typeof m === 'string') throw fail(`${where}: '${entry}' ${m}`);
    const key = formatMaster(m).toLowerCase();
    const before = seen.get(key);
    if (before !== undefined) throw fail(`${where}: '${entry}' is listed twice (also master[${before}])`);
    seen.set(key, i);
    out.push(m);
  });
  return out;
}

/** The address, or why the entry is not one. */
function parseEntry(s: string, defaultPort: number): MasterAddress | string {
  if (s === '') return "is empty; give 'host' or 'host:port'";
  let host = s;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(.*))?$/.exec(s);
  if (bracket) {
    host = bracket[1]!;
    portText = bracket[2];
    if (isIP(host) !== 6) return 'has brackets around something that is not an IPv6 address';
  } else if (isIP(s) === 6) {
    // a bare IPv6 address: its colons are not a port
    host = s;
  } else if (s.includes(':')) {
    const at = s.lastIndexOf(':');
    host = s.slice(0, at);
    portText = s.slice(at + 1);
    if (host.includes(':')) return "is not 'host:port' (write an IPv6 address with a port as '[addr]:port')";
  }
  let port = defaultPort;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return `has a bad port '${portText}' (1 to 65535)`;
    port = Number(portText);
  }
  if (isIP(host) === 0 && !HOST_NAME.test(host)) return `has a bad host '${host}' (a host name or an IP address)`;
  return { host, port };
}
