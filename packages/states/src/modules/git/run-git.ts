import type { CommandResult, StateContext } from '@brine/core';

/** Runs `git ARGS` in CWD as USER (when given), as Salt's git module does. */
export function runGit(ctx: StateContext, args: string[], opts: { cwd?: string; user?: string; env?: Record<string, string> } = {}): Promise<CommandResult> {
  return ctx.cmd.run(['git', ...args], {
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.user ? { runas: opts.user } : {}),
    // never prompt for credentials: a state must fail, not hang
    env: { GIT_TERMINAL_PROMPT: '0', ...opts.env },
  });
}

/** The error text Salt puts in its comments: stderr (else stdout) without trailing newlines. */
export function gitError(r: CommandResult): string {
  return (r.stderr.trim() ? r.stderr : r.stdout).replace(/\s+$/, '');
}

/** A list of strings as Python prints it (Salt's comments show lists that way). */
export function pyStrList(items: string[]): string {
  return `[${items.map((s) => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`)).join(', ')}]`;
}
