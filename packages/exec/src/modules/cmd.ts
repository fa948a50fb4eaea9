import { which, type CommandResult } from '@brine/core';
import type { ExecContext, ExecFunction, Param } from '../function.js';

const cmdParams: Param[] = [
  { name: 'cmd', type: ['string', 'list'], required: true },
  { name: 'cwd', type: 'string' },
  { name: 'stdin', type: 'string' },
  { name: 'runas', type: 'string' },
  { name: 'shell', type: 'string' },
  { name: 'python_shell', type: 'boolean' },
  { name: 'env', type: 'dict' },
  { name: 'timeout', type: 'number' },
  { name: 'ignore_retcode', type: 'boolean', default: false },
  { name: 'success_retcodes', type: ['list', 'number'] },
  { name: 'output_loglevel', type: 'string' },
  { name: 'umask', type: 'string' },
];

/** POSIX word splitting without expansion (Python's shlex.split), for python_shell=False. */
export function shlexSplit(s: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      cur += s.slice(i + 1, end < 0 ? s.length : end);
      i = end < 0 ? s.length : end;
      inWord = true;
    } else if (c === '"') {
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\' && i + 1 < s.length && '"\\$`\n'.includes(s[i + 1]!)) i++;
        cur += s[i++];
      }
      inWord = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** The minion's shell, as Salt's: the `shell` grain. */
export function defaultShell(ctx: ExecContext): string {
  return typeof ctx.grains.shell === 'string' ? ctx.grains.shell : '/bin/sh';
}

/**
 * Runs a command as Salt's cmdmod does: through the shell when python_shell (the default for a
 * direct call from the command line or a job; code such as module.run, fun: conditions and
 * templates gets python_shell=False unless it asks), split into words otherwise;
 * success_retcodes read as 0. The job's retcode is the command's unless ignore_retcode.
 */
export async function runCmd(a: Record<string, unknown>, ctx: ExecContext, forceShell = false): Promise<CommandResult> {
  const env = a.env as Record<string, unknown> | undefined;
  const useShell = forceShell || (a.python_shell === undefined ? ctx.direct === true : a.python_shell === true);
  let command: string | string[] = a.cmd as string | string[];
  if (!useShell && typeof command === 'string') command = shlexSplit(command);
  if (useShell && Array.isArray(command)) command = command.map((w) => String(w)).join(' ');
  const r = await ctx.cmd.run(command, {
    shell: typeof a.shell === 'string' ? a.shell : defaultShell(ctx),
    ...(a.cwd !== undefined ? { cwd: a.cwd as string } : {}),
    ...(a.stdin !== undefined ? { stdin: a.stdin as string } : {}),
    ...(a.runas !== undefined ? { runas: a.runas as string } : {}),
    ...(env ? { env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) } : {}),
    ...(a.timeout !== undefined ? { timeoutMs: (a.timeout as number) * 1000 } : {}),
    signal: ctx.signal,
  });
  const ok = a.success_retcodes === undefined ? [] : ([] as unknown[]).concat(a.success_retcodes).map(Number);
  return ok.includes(r.retcode) ? { ...r, retcode: 0 } : r;
}

function jobRetcode(a: Record<string, unknown>, r: CommandResult): number {
  return a.ignore_retcode === true ? 0 : r.retcode;
}

/** Output as cmd.run gives it: Salt redirects stderr into stdout. */
function merged(r: CommandResult): string {
  return [r.stdout, r.stderr].filter((s) => s !== '').join('\n');
}

export { which };

export const cmdFunctions: ExecFunction[] = [
  {
    name: 'cmd.run',
    doc: "Runs a command and returns its output, stderr included (through the minion's shell; python_shell=False splits it into words).",
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCmd(a, ctx);
      return { return: merged(r), retcode: jobRetcode(a, r) };
    },
  },
  {
    name: 'cmd.shell',
    doc: "Runs a command through the minion's shell and returns its output, stderr included.",
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCmd(a, ctx, true);
      return { return: merged(r), retcode: jobRetcode(a, r) };
    },
  },
  {
    name: 'cmd.run_stdout',
    doc: 'Runs a command and returns its standard output only.',
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCmd(a, ctx);
      return { return: r.stdout, retcode: jobRetcode(a, r) };
    },
  },
  {
    name: 'cmd.run_stderr',
    doc: 'Runs a command and returns its standard error only.',
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCmd(a, ctx);
      return { return: r.stderr, retcode: jobRetcode(a, r) };
    },
  },
  {
    name: 'cmd.run_all',
    doc: 'Runs a command and returns pid, retcode, stdout and stderr.',
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCmd(a, ctx);
      return { return: { pid: r.pid, retcode: r.retcode, stdout: r.stdout, stderr: r.stderr }, retcode: jobRetcode(a, r) };
    },
  },
  {
    name: 'cmd.retcode',
    doc: 'Runs a command and returns its exit code.',
    params: cmdParams,
    run: async (a, ctx) => {
      const r = await runCmd(a, ctx);
      return { return: r.retcode, retcode: jobRetcode(a, r) };
    },
  },
  {
    name: 'cmd.which',
    doc: 'The path of an executable on the minion, or None.',
    params: [{ name: 'cmd', type: 'string', required: true }],
    run: (a) => ({ return: which(a.cmd as string) }),
  },
  {
    name: 'cmd.which_bin',
    doc: 'The path of the first of the commands found, or None.',
    params: [{ name: 'cmds', type: 'list', required: true }],
    run: (a) => ({ return: (a.cmds as unknown[]).map((c) => which(String(c))).find((p) => p !== null) ?? null }),
  },
  {
    name: 'cmd.has_exec',
    doc: 'True if the executable is available on the minion.',
    params: [{ name: 'cmd', type: 'string', required: true }],
    run: (a) => ({ return: which(a.cmd as string) !== null }),
  },
];
