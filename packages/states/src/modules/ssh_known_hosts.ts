import { isAbsolute } from 'node:path';
import type { StateModule, StateReturn } from '@brine/core';
import { checkKnownHost, knownHostEntries, rmKnownHost, setKnownHost, SshError, type KnownHostsHost } from '@brine/exec';
import { getUser } from '../util/accounts.js';
import { which } from '../util/which.js';

/** Salt's `ssh_known_hosts.present` and `absent`, through ssh-keygen and ssh-keyscan. */

const str = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));
const num = (v: unknown): number | null | undefined => (v === undefined || v === null ? undefined : Number(v));

export function sshKnownHostsModule(): StateModule {
  return {
    name: 'ssh_known_hosts',
    available() {
      return which('ssh-keygen') ? { available: true } : { available: false, reason: 'ssh-keygen not found' };
    },
    functions: {
      present: {
        args: {
          user: { type: 'string' },
          fingerprint: { type: 'string' },
          key: { type: 'string' },
          port: { type: ['number', 'string'] },
          enc: { type: 'string' },
          config: { type: 'string' },
          hash_known_hosts: { type: 'boolean' },
          timeout: { type: 'number' },
          fingerprint_hash_type: { type: 'string' },
        },
        async run(a, ctx) {
          const name = String(a.name);
          const user = str(a.user);
          const key = str(a.key);
          const fp = str(a.fingerprint);
          const enc = str(a.enc);
          const port = num(a.port);
          const hashType = str(a.fingerprint_hash_type);
          const config = str(a.config) ?? (user ? '.ssh/known_hosts' : '/etc/ssh/ssh_known_hosts');
          const ret: StateReturn = { name, changes: {}, result: ctx.test ? null : true, comment: '' };
          if (!user && !isAbsolute(config)) return { ...ret, result: false, comment: 'If not specifying a "user", specify an absolute "config".' };
          const h: KnownHostsHost = { cmd: ctx.cmd, userInfo: (u) => getUser(u, ctx.cmd) };
          if (ctx.test) {
            if (key && fp) return { ...ret, result: false, comment: 'Specify either "key" or "fingerprint", not both.' };
            if (key && !enc) return { ...ret, result: false, comment: 'Required argument "enc" if using "key" argument.' };
            const r = await checkKnownHost(h, { user, hostname: name, key, fingerprint: fp, config, port, hashType });
            if (typeof r === 'object') return { ...ret, result: false, comment: r.error };
            if (r === 'exists') return { ...ret, result: true, comment: `Host ${name} is already in ${config}` };
            if (r === 'add') return { ...ret, comment: `Key for ${name} is set to be added to ${config}` };
            return { ...ret, comment: `Key for ${name} is set to be updated in ${config}` };
          }
          let r;
          try {
            r = await setKnownHost(h, {
              user,
              hostname: name,
              fingerprint: fp,
              key,
              port,
              enc,
              config,
              hashKnownHosts: a.hash_known_hosts === undefined ? true : Boolean(a.hash_known_hosts),
              timeout: a.timeout === undefined ? 5 : Number(a.timeout),
              hashType,
            });
          } catch (e) {
            if (!(e instanceof SshError)) throw e;
            return { ...ret, result: false, comment: e.message };
          }
          if (r.status === 'exists') return { ...ret, comment: `${name} already exists in ${config}` };
          if (r.status === 'error') return { ...ret, result: false, comment: r.error };
          const changes = { old: r.old, new: r.new };
          const first = r.new[0]!;
          if (key) return { ...ret, changes, comment: `${name}'s key saved to ${config} (key: ${first.key})` };
          if (fp) return { ...ret, changes, comment: `${name}'s key saved to ${config} (fingerprint: ${first.fingerprint})` };
          if (enc) return { ...ret, changes, comment: `${name}'s ${enc} key saved to ${config} (key: ${first.key})` };
          return { ...ret, changes, comment: `${name}'s key(s) saved to ${config}` };
        },
      },
      absent: {
        args: { user: { type: 'string' }, config: { type: 'string' } },
        async run(a, ctx) {
          const name = String(a.name);
          const user = str(a.user);
          const config = str(a.config) ?? (user ? '.ssh/known_hosts' : '/etc/ssh/ssh_known_hosts');
          const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
          if (!user && !isAbsolute(config)) return { ...ret, result: false, comment: 'If not specifying a "user", specify an absolute "config".' };
          const h: KnownHostsHost = { cmd: ctx.cmd, userInfo: (u) => getUser(u, ctx.cmd) };
          const known = await knownHostEntries(h, user, name, config);
          if (!known) return { ...ret, comment: 'Host is already absent' };
          if (ctx.test) return { ...ret, result: null, comment: `Key for ${name} is set to be removed from ${config}` };
          const r = await rmKnownHost(h, user, name, config);
          if (r.status === 'error') return { ...ret, result: false, comment: r.error };
          return { ...ret, changes: { old: known, new: null }, result: true, comment: r.comment };
        },
      },
    },
  };
}
