import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { globMatch } from '@brine/core';
import { traverse } from '@brine/jinja';
import type { ExecContext, ExecFunction, Param } from './exec-function.js';

const cmdParams: Param[] = [
  { name: 'cmd', type: ['string', 'list'], required: true },
  { name: 'cwd', type: 'string' },
  { name: 'stdin', type: 'string' },
  { name: 'runas', type: 'string' },
  { name: 'shell', type: 'string' },
  { name: 'env', type: 'dict' },
  { name: 'timeout', type: 'number' },
];

async function runCommand(args: Record<string, unknown>, ctx: ExecContext) {
  const env = args.env as Record<string, unknown> | undefined;
  return ctx.cmd.run(args.cmd as string | string[], {
    ...(args.cwd !== undefined ? { cwd: args.cwd as string } : {}),
    ...(args.stdin !== undefined ? { stdin: args.stdin as string } : {}),
    ...(args.runas !== undefined ? { runas: args.runas as string } : {}),
    ...(args.shell !== undefined ? { shell: args.shell as string } : {}),
    ...(env ? { env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) } : {}),
    ...(args.timeout !== undefined ? { timeoutMs: (args.timeout as number) * 1000 } : {}),
    signal: ctx.signal,
  });
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Salt's which: the name itself when it is an executable path, else the first hit on PATH and then the system directories. */
function which(exe: string): string | null {
  if (exe === '') return null;
  if (isExecutable(exe)) return exe;
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const d of ['/sbin', '/bin', '/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin']) if (!dirs.includes(d)) dirs.push(d);
  for (const d of dirs) {
    const p = path.join(d, exe);
    if (isExecutable(p)) return p;
  }
  return null;
}

/** The remote execution functions a minion offers. */
export const EXEC_FUNCTIONS: ExecFunction[] = [
  {
    name: 'test.ping',
    doc: 'Answers true: the minion is up and answering.',
    params: [],
    run: () => ({ return: true }),
  },
  {
    name: 'test.echo',
    doc: 'Returns the text it was given.',
    params: [{ name: 'text', type: 'any', required: true }],
    run: (a) => ({ return: a.text }),
  },
  {
    name: 'test.version',
    doc: 'The Brine version of this minion.',
    params: [],
    run: (_a, ctx) => ({ return: ctx.version }),
  },
  {
    name: 'grains.items',
    doc: 'All grains of this minion.',
    params: [],
    run: (_a, ctx) => ({ return: ctx.grains }),
  },
  {
    name: 'grains.get',
    doc: "One grain, nested keys joined by ':' (e.g. 'ip_interfaces:eth0'), or the default.",
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'default', type: 'any', default: '' },
      { name: 'delimiter', type: 'string', default: ':' },
    ],
    run: (a, ctx) => ({ return: traverse(ctx.grains, a.key as string, a.default, a.delimiter as string) }),
  },
  {
    name: 'cmd.run',
    doc: 'Runs a command (a string through the shell) and returns its output, stderr included.',
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCommand(a, ctx);
      const out = [r.stdout, r.stderr].filter((s) => s !== '').join('\n');
      return { return: out, retcode: r.retcode };
    },
  },
  {
    name: 'cmd.run_all',
    doc: 'Runs a command and returns pid, retcode, stdout and stderr.',
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCommand(a, ctx);
      return { return: { pid: r.pid, retcode: r.retcode, stdout: r.stdout, stderr: r.stderr }, retcode: r.retcode };
    },
  },
  {
    name: 'cmd.which',
    doc: 'The path of an executable on the PATH of this minion, or None.',
    params: [{ name: 'cmd', type: 'string', required: true }],
    run: (a) => ({ return: which(a.cmd as string) }),
  },
  {
    name: 'cmd.has_exec',
    doc: 'True when the executable is on the PATH of this minion.',
    params: [{ name: 'cmd', type: 'string', required: true }],
    run: (a) => ({ return: which(a.cmd as string) !== null }),
  },
  {
    name: 'sys.list_functions',
    doc: 'Names of the functions this minion offers, optionally filtered by globs.',
    params: [{ name: 'match', type: ['string', 'list'], default: '*' }],
    run: (a, ctx) => {
      const pats = Array.isArray(a.match) ? (a.match as string[]).map(String) : [String(a.match)];
      return {
        return: ctx.functions().filter((f) => pats.some((p) => globMatch(f, p.includes('*') || p.includes('.') ? p : `${p}.*`))),
      };
    },
  },
  {
    name: 'saltutil.running',
    doc: 'Jobs running on this minion right now.',
    params: [],
    run: (_a, ctx) => ({ return: ctx.running().filter((j) => j.jid !== ctx.jid) }),
  },
  {
    name: 'saltutil.kill_job',
    doc: 'Stops a running job by jid.',
    params: [{ name: 'jid', type: ['string', 'number'], required: true }],
    run: (a, ctx) => {
      const jid = String(a.jid);
      if (ctx.kill(jid)) return { return: `Signal 15 sent to job ${jid}` };
      return { return: `No job ${jid} is running on this minion`, retcode: 1 };
    },
  },
];
