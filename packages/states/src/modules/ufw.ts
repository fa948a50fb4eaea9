import { lookup } from 'node:dns/promises';
import type { ArgSpec, StateContext, StateModule, StateReturn } from '@brine/core';
import { which } from '@brine/exec';

/**
 * The ufw states of saltstack-formulas/ufw-formula (its own `_states/ufw.py`, which Salt has only
 * through that formula), built in so trees using the formula run unchanged: every rule goes to the
 * `ufw` CLI as the formula sends it, through a shell, so a quoted comment reads as it does there.
 */

const ret = (name: string, result: boolean | null, comment: string, changes: Record<string, unknown> = {}): StateReturn => ({ name, result, comment, changes });

/**
 * What the formula's cmd.run gives: stdout and stderr together, the trailing newline gone. `test`
 * adds --dry-run, which is safe for rules only (ufw writes nothing for them); enable, disable and
 * logging write their config files even in a dry run.
 */
async function ufw(ctx: StateContext, args: string, test: boolean): Promise<string> {
  const r = await ctx.cmd.run(`ufw ${test ? '--dry-run ' : ''}${args}`);
  return [r.stdout, r.stderr].filter(Boolean).join('').replace(/\n+$/, '');
}

/** A host name in from_addr/from_port is resolved as the formula does (anything not starting with a digit or colon). */
async function resolveHost(host: string): Promise<string> {
  if (/^[0-9:]/.test(host)) return host;
  return (await lookup(host, { family: 4 })).address;
}

interface RuleArgs {
  app?: string;
  interface?: string;
  protocol?: string;
  from_addr?: string;
  from_port?: string;
  to_addr?: string;
  to_port?: string;
  comment?: string;
}

async function asRule(method: string, r: RuleArgs): Promise<string> {
  const cmd = [method];
  if (r.app != null) cmd.push('from', r.from_addr ?? 'any', 'to', r.to_addr ?? 'any', 'app', r.app);
  else if (r.interface != null) cmd.push('in', 'on', r.interface);
  else {
    if (r.protocol != null) cmd.push('proto', r.protocol);
    cmd.push('from', r.from_addr != null ? await resolveHost(r.from_addr) : 'any');
    if (r.from_port != null) cmd.push('port', await resolveHost(r.from_port));
    cmd.push('to', r.to_addr ?? 'any');
    if (r.to_port != null) cmd.push('port', r.to_port);
  }
  if (r.comment != null) cmd.push('comment', r.comment);
  return cmd.join(' ');
}

const WILDCARD = /^["' ]*\*["' ]*$/;

async function addRule(ctx: StateContext, method: string, name: string, a: Record<string, unknown>): Promise<StateReturn> {
  const s = (k: string) => (a[k] == null ? undefined : String(a[k]));
  const r: RuleArgs = {
    app: s('app'),
    interface: s('interface'),
    protocol: s('protocol'),
    from_addr: s('from_addr'),
    from_port: s('from_port'),
    to_addr: s('to_addr'),
    to_port: s('to_port'),
    comment: s('comment'),
  };
  if (r.app && WILDCARD.test(r.app)) r.app = undefined;
  if (r.to_port && WILDCARD.test(r.to_port)) r.to_port = undefined;
  let rule: string;
  try {
    rule = await asRule(method, r);
  } catch (e) {
    return ret(name, false, `Unable to resolve ${r.from_addr ?? r.from_port}: ${(e as Error).message}`);
  }
  const out = await ufw(ctx, rule, ctx.test);
  const first = out.split('\n')[0] ?? '';
  // the first deny of an empty rule set cannot be inserted at position 1: add it instead
  if (method.startsWith('insert 1 deny') && first.includes("Invalid position '1'")) return addRule(ctx, 'deny', name, a);
  if (first.startsWith('Skipping')) return ret(name, true, `${name} is already configured`);
  const done = /^Rules? (added|inserted|updated)/.exec(first);
  if (done) return ret(name, true, `${name} ${done[1]}`, { rule });
  // The formula answers "would have been configured" for any dry-run output, errors included;
  // Brine reports a rule ufw refuses as a failure in test mode too.
  if (ctx.test && !first.startsWith('ERROR')) return ret(name, null, `${name} would have been configured`);
  return ret(name, false, first);
}

function defaultPolicy(direction: 'incoming' | 'outgoing') {
  return async (a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    const name = String(a.name);
    const want = String(a.default);
    const rule = `default ${want} ${direction}`;
    if (ctx.test) return ret(name, null, `${name}: ${rule}`);
    const status = await ufw(ctx, 'status verbose', false);
    const current = new RegExp(`(\\w+) \\(${direction}\\)`).exec(status)?.[1];
    if (current === want) return ret(name, true, `${name} was already set to ${want}`);
    const out = await ufw(ctx, rule, false);
    const first = out.split('\n')[0] ?? '';
    if (first.startsWith(`Default ${direction} policy changed to`)) return ret(name, true, `${name} set to ${want}`, { rule });
    return ret(name, false, first);
  };
}

const ruleArgs: Record<string, ArgSpec> = Object.fromEntries(
  ['app', 'interface', 'protocol', 'from_addr', 'from_port', 'to_addr', 'to_port', 'comment'].map((k) => [k, { type: ['string', 'number'] } as ArgSpec]),
);

export function ufwModule(): StateModule {
  const rule = (method: string) => ({ args: ruleArgs, run: (a: Record<string, unknown>, ctx: StateContext) => addRule(ctx, method, String(a.name), a) });
  return {
    name: 'ufw',
    available() {
      return which('ufw') ? { available: true } : { available: false, reason: 'ufw not found (Debian package ufw)' };
    },
    functions: {
      enabled: {
        args: {},
        async run(a, ctx) {
          const name = String(a.name);
          if ((await ufw(ctx, 'status', false)).includes('Status: active')) return ret(name, true, 'UFW is already enabled');
          // The formula runs `ufw --dry-run --force enable` here, and ufw's dry run still writes
          // ENABLED=yes to /etc/ufw/ufw.conf (so the firewall comes up at the next boot): test
          // mode answers without running it.
          if (ctx.test) return ret(name, null, 'UFW would have been enabled');
          await ufw(ctx, '--force enable', false);
          return ret(name, true, 'UFW is enabled', { enabled: true });
        },
      },
      default_incoming: { args: { default: { type: 'string', required: true } }, run: defaultPolicy('incoming') },
      default_outgoing: { args: { default: { type: 'string', required: true } }, run: defaultPolicy('outgoing') },
      allow: rule('allow'),
      allowed: rule('allow'),
      deny: rule('insert 1 deny'),
      limit: rule('limit'),
    },
  };
}
