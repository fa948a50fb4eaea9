import type { ExecCaller, CommandOptions, CommandResult, CommandRunner, FileClient, LowChunk, RunningDict, StateContext } from '@brine/core';
import { createCommandRunner } from '@brine/core';

export function chunk(state: string, fun: string, name: string, extra: Record<string, unknown> = {}): LowChunk {
  return { state, fun, name, __id__: name, __sls__: 'main', __env__: 'base', order: 10000, ...extra };
}

export const noFiles: FileClient = { get: async () => undefined };

export function ctxFor(
  low: LowChunk,
  opts: {
    test?: boolean;
    cmd?: CommandRunner;
    files?: FileClient;
    running?: RunningDict;
    lowstate?: LowChunk[];
    templateContext?: Record<string, unknown>;
    exec?: ExecCaller;
  } = {},
): StateContext {
  return {
    low,
    running: opts.running ?? {},
    lowstate: opts.lowstate ?? [low],
    test: opts.test ?? false,
    cmd: opts.cmd ?? createCommandRunner(),
    files: opts.files ?? noFiles,
    templateContext: opts.templateContext,
    ...(opts.exec ? { exec: opts.exec } : {}),
  };
}

/** A runner that records every call and answers from a script of handlers (default: success). */
export function fakeRunner(
  answer: (cmd: string | string[], opts: CommandOptions) => Partial<CommandResult> | undefined = () => undefined,
): CommandRunner & { calls: Array<{ cmd: string | string[]; opts: CommandOptions }> } {
  const calls: Array<{ cmd: string | string[]; opts: CommandOptions }> = [];
  return {
    calls,
    async run(cmd, opts = {}) {
      calls.push({ cmd, opts });
      const a = answer(cmd, opts) ?? {};
      return { retcode: 0, stdout: '', stderr: '', pid: 4242, ...a };
    },
  };
}

export function argv(cmd: string | string[]): string {
  return Array.isArray(cmd) ? cmd.join(' ') : cmd;
}
