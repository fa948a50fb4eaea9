import { isIP } from 'node:net';
import os from 'node:os';

/** The name in a Host header, without its port, lowercased; `[::1]:4507` gives `::1`. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  // one colon: name:port; more: an IPv6 address without brackets
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/**
 * The names the operator API answers to, against DNS rebinding: a page on an attacker's name
 * that resolves to this host sends that name as Host. An IP address, `localhost`, this host's
 * own name, api_host and api_allowed_hosts are accepted; any other name is refused.
 */
export function allowedHosts(apiHost: string, extra: string[]): (header: string | undefined) => boolean {
  const names = new Set(['localhost', os.hostname().toLowerCase(), apiHost.toLowerCase(), ...extra.map((h) => h.toLowerCase())]);
  return (header) => {
    // HTTP/1.0 clients may send none; a browser always does
    if (header === undefined || header === '') return true;
    const name = hostName(header).replace(/\.$/, '');
    return isIP(name) !== 0 || names.has(name) || name.endsWith('.localhost');
  };
}
