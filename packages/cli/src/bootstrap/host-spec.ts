import { isValidMinionId } from '@brine/protocol';
import { cliErrors } from '../errors.js';

/** One target of `brine bootstrap`: `[ID=][user@]host[:port]`. */
export interface HostSpec {
  /** As written on the command line, for messages. */
  spec: string;
  /** The minion id: ID= when given, else the host as written (salt-ssh's roster names it the same way). */
  id: string;
  user?: string;
  host: string;
  port?: number;
}

export const BOOTSTRAP_USAGE =
  'brine bootstrap [--tarball FILE]... [--prefix DIR] [--data-dir DIR] [--master HOST[:PORT]] [--concurrency N] [--timeout SECONDS]\n' +
  '                [-i IDENTITY_FILE] [-o SSH_OPTION]... [-F SSH_CONFIG] [--config MASTER_CONFIG] [ID=][USER@]HOST[:PORT]...';

const usage = (detail: string) => cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: BOOTSTRAP_USAGE });

/** Parses `[ID=][user@]host[:port]`; an IPv6 host with a port is written [addr]:port. */
export function parseHostSpec(spec: string): HostSpec {
  const eq = spec.indexOf('=');
  const explicitId = eq > 0 ? spec.slice(0, eq) : undefined;
  let rest = eq > 0 ? spec.slice(eq + 1) : spec;
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  let host = rest;
  let port: number | undefined;
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest) ?? (rest.split(':').length === 2 ? /^([^:]+):(\d+)$/.exec(rest) : null);
  if (m) {
    host = m[1]!;
    if (m[2] !== undefined) port = Number(m[2]);
  }
  // what reaches ssh's command line is a name, an address or a user: never an option
  if (!host || !/^[A-Za-z0-9._:%-]+$/.test(host) || host.startsWith('-')) throw usage(`'${spec}': not a host name or address`);
  if (user !== undefined && !/^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(user)) throw usage(`'${spec}': not a user name`);
  if (port !== undefined && !(port > 0 && port < 65536)) throw usage(`'${spec}': port out of range`);
  const id = explicitId ?? host;
  if (!isValidMinionId(id)) throw usage(`'${spec}': '${id}' is not a valid minion id (give one as ID=${spec})`);
  return { spec, id, host, ...(user !== undefined ? { user } : {}), ...(port !== undefined ? { port } : {}) };
}

/**
 * A folder on the target: absolute, in plain characters (it goes into a systemd unit's
 * ExecStart and shell scripts), with {id} replaced by the minion id.
 */
export function targetPath(template: string, id: string, option: string): string {
  const p = template.replaceAll('{id}', id);
  if (!/^\/[A-Za-z0-9._/+-]*$/.test(p) || p.split('/').includes('..')) {
    throw usage(`${option} '${template}': an absolute path of letters, digits and . _ / + - ({id} stands for the minion id)`);
  }
  return p.replace(/\/+$/, '') || '/';
}
