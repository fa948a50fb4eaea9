import { spawn } from 'node:child_process';
import type { CommandRunner, FileClient, LowChunk, StateFunction, StateModule, StateRegistry, StateReturn } from '@brine/core';

/**
 * Small state modules for the runtime's own tests (the real ones live in @brine/states, which the
 * runtime must not import): `test` with Salt's comments, a minimal `cmd.run`, and `svc`, a module
 * with a mod_watch that records its calls.
 */

const pretend = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };

function testFn(run: (args: Record<string, unknown>, test: boolean) => StateReturn): StateFunction {
  return {
    args: { comment: { type: 'string' }, changes: { type: 'any' }, result: { type: 'any' }, new_state: { type: 'any' } },
    run: async (args, ctx) => run(args, ctx.test),
  };
}

export const testModule: StateModule = {
  name: 'test',
  available: () => ({ available: true }),
  functions: {
    succeed_without_changes: testFn((a) => ({
      name: String(a.name),
      result: true,
      changes: {},
      comment: (a.comment as string) ?? 'Success!',
      ...(a.new_state !== undefined ? { new_state: a.new_state } : {}),
    })),
    succeed_with_changes: testFn((a, test) => ({
      name: String(a.name),
      result: test ? null : true,
      changes: structuredClone(pretend),
      comment: test ? "If we weren't testing, this would be successful with changes" : ((a.comment as string) ?? 'Success!'),
      ...(a.new_state !== undefined ? { new_state: a.new_state } : {}),
    })),
    fail_without_changes: testFn((a, test) => ({
      name: String(a.name),
      result: false,
      changes: {},
      comment: test ? "If we weren't testing, this would be a failure!" : ((a.comment as string) ?? 'Failure!'),
    })),
    fail_with_changes: testFn((a, test) => ({
      name: String(a.name),
      result: false,
      changes: structuredClone(pretend),
      comment: test ? "If we weren't testing, this would be failed with changes" : 'Failure!',
    })),
    nop: testFn((a) => ({ name: String(a.name), result: true, changes: {}, comment: 'Success!' })),
    configurable_test_state: testFn((a, test) => {
      const changes = a.changes === false ? {} : structuredClone(pretend);
      let result = a.result === undefined ? true : (a.result as boolean | null);
      if (test && Object.keys(changes).length > 0 && result === true) result = null;
      return { name: String(a.name), result, changes, comment: (a.comment as string) ?? '' };
    }),
    throws: testFn(() => {
      throw new Error('kaboom');
    }),
    echo_args: { args: {}, extraArgs: true, run: async (args) => ({ name: String(args.name), result: true, changes: {}, comment: JSON.stringify(args) }) },
  },
  async modWatch(args, ctx) {
    const reqs = (ctx.low.__reqs__ as Record<string, Array<{ state: string; __id__: string }>> | undefined)?.watch ?? [];
    const has = reqs
      .filter((r) => Object.keys(ctx.running[`${r.state}_|-${r.__id__}_|-${r.__id__}_|-succeed_with_changes`]?.changes ?? {}).length > 0)
      .map((r) => `${r.state}: ${r.__id__}`);
    return { name: String(args.name), result: true, changes: { 'Requisites with changes': has }, comment: 'Watch statement fired.' };
  },
};

export const cmdModule: StateModule = {
  name: 'cmd',
  available: () => ({ available: true }),
  functions: {
    run: {
      args: { cwd: { type: 'string' }, env: { type: 'any' }, shell: { type: 'string' } },
      async run(args, ctx) {
        const name = String(args.name);
        if (ctx.test) return { name, result: null, changes: { cmd: name }, comment: `Command "${name}" would have been executed` };
        const r = await ctx.cmd.run(name, args.cwd ? { cwd: String(args.cwd) } : {});
        return {
          name,
          result: r.retcode === 0,
          comment: `Command "${name}" run`,
          changes: { pid: r.pid, retcode: r.retcode, stdout: r.stdout, stderr: r.stderr },
        };
      },
    },
  },
  async modWatch(args, ctx) {
    return cmdModule.functions.run!.run({ name: args.name }, ctx);
  },
};

/** A service-like module: `svc.running` changes nothing; mod_watch "restarts" and logs the call. */
export function svcModule(log: string[]): StateModule {
  return {
    name: 'svc',
    available: () => ({ available: true }),
    functions: {
      running: {
        args: {},
        async run(args) {
          log.push(`running ${String(args.name)}`);
          return { name: String(args.name), result: true, changes: {}, comment: 'The service is already running' };
        },
      },
    },
    async modWatch(args, ctx) {
      log.push(`mod_watch ${String(args.name)} sfun=${String(args.sfun)} test=${ctx.test}`);
      if (ctx.test) return { name: String(args.name), result: null, changes: {}, comment: 'Service is set to be restarted' };
      return { name: String(args.name), result: true, changes: { restarted: true }, comment: 'Service restarted' };
    },
  };
}

/** An unavailable module: lookups work, the host says no. */
export const pkgUnavailable: StateModule = {
  name: 'pkgx',
  available: () => ({ available: false, reason: 'dpkg not found' }),
  functions: { installed: { args: {}, run: async (a) => ({ name: String(a.name), result: true, changes: {}, comment: '' }) } },
};

export function makeRegistry(...modules: StateModule[]): StateRegistry {
  const byName = new Map(modules.map((m) => [m.name, m]));
  return {
    module: (n) => byName.get(n),
    lookup(state, fun) {
      const module = byName.get(state);
      const fn = module?.functions[fun];
      return module && fn ? { module, fn } : undefined;
    },
    list: () => [...byName.values()].flatMap((m) => Object.keys(m.functions).map((f) => `${m.name}.${f}`)),
  };
}

/** Runs commands with /bin/sh and records them. */
export function shellRunner(calls: string[] = []): CommandRunner {
  return {
    run(command, options = {}) {
      const line = typeof command === 'string' ? command : command.join(' ');
      calls.push(line);
      return new Promise((resolve, reject) => {
        const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
        const p = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env ?? process.env });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d) => (stdout += d));
        p.stderr.on('data', (d) => (stderr += d));
        p.on('error', reject);
        p.on('close', (code) => resolve({ retcode: code ?? 1, stdout: stdout.trimEnd(), stderr: stderr.trimEnd(), pid: p.pid ?? 0 }));
      });
    },
  };
}

export const noFiles: FileClient = { get: async () => undefined };

/** A maker of low chunks of one state module in sls `main`, numbered in the order they are made. */
export function chunkMaker(state: string, defaultFun?: string): (id: string, fun?: string, extra?: Record<string, unknown>) => LowChunk {
  let order = 1;
  return (id, fun = defaultFun, extra = {}) => ({ state, fun: fun!, __id__: id, name: id, __sls__: 'main', __env__: 'base', order: order++, ...extra });
}
