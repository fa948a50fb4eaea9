import { existsSync, statSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellQuote, type ArgSpec, type CommandOptions, type StateContext, type StateModule, type StateReturn } from '@brine/core';
import { envDict, isDict } from '@brine/core';
import { asString } from '../util/args.js';
import { getUser } from '../util/accounts.js';
import { renderFileTemplate } from '../util/template.js';
import { reinterpretStateful } from './cmd-stateful.js';

const COMMON_ARGS: Record<string, ArgSpec> = {
  cwd: { type: 'string' },
  runas: { type: 'string' },
  shell: { type: 'string' },
  env: { type: 'any' },
  stateful: { type: ['boolean', 'list'] },
  umask: { type: ['string', 'number'] },
  timeout: { type: 'number' },
  stdin: { type: 'string' },
  hide_output: { type: 'boolean' },
  output_loglevel: { type: 'string' },
  success_retcodes: { type: ['list', 'number'] },
  success_stdout: { type: ['list', 'string'] },
  success_stderr: { type: ['list', 'string'] },
  use_vt: { type: 'boolean' },
  prepend_path: { type: 'string' },
  ignore_timeout: { type: 'boolean' },
  password: { type: 'string' },
  root: { type: 'string' },
  bg: { type: 'boolean' },
};

const SCRIPT_ARGS: Record<string, ArgSpec> = {
  ...COMMON_ARGS,
  source: { type: 'string' },
  args: { type: ['string', 'number'] },
  template: { type: 'string' },
  defaults: { type: 'dict' },
  context: { type: 'dict' },
  saltenv: { type: 'string' },
};

function listOf(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** `stateful` as Salt reads it: true, or a list whose first item may carry `test_name`. */
function statefulOf(v: unknown): { stateful: boolean; testName?: string } {
  if (Array.isArray(v)) {
    const first = v[0];
    if (isDict(first) && typeof first.test_name === 'string') return { stateful: true, testName: first.test_name };
    return { stateful: true };
  }
  return { stateful: v === true };
}

function commandOptions(args: Record<string, unknown>, env: Record<string, string> | undefined): CommandOptions {
  const opts: CommandOptions = {};
  if (typeof args.cwd === 'string') opts.cwd = args.cwd;
  if (env) opts.env = env;
  if (typeof args.runas === 'string' && args.runas) opts.runas = args.runas;
  if (typeof args.shell === 'string') opts.shell = args.shell;
  if (typeof args.stdin === 'string') opts.stdin = args.stdin;
  if (typeof args.timeout === 'number' && args.timeout > 0) opts.timeoutMs = args.timeout * 1000;
  if (typeof args.prepend_path === 'string') {
    opts.env = { ...(opts.env ?? {}), PATH: `${args.prepend_path}:${opts.env?.PATH ?? process.env.PATH ?? ''}` };
  }
  return opts;
}

function withUmask(command: string, umask: unknown): string {
  if (umask === undefined || umask === null) return command;
  return `umask ${String(umask)}; ${command}`;
}

/** Runs the command and shapes Salt's cmd result: changes {pid, retcode, stdout, stderr}. */
async function execute(
  ret: StateReturn,
  command: string,
  args: Record<string, unknown>,
  ctx: StateContext,
  env: Record<string, string> | undefined,
  comment: string,
): Promise<StateReturn> {
  const r = await ctx.cmd.run(withUmask(command, args.umask), commandOptions(args, env));
  let retcode = r.retcode;
  const okCodes = listOf(args.success_retcodes).map(Number);
  if (retcode !== 0 && okCodes.includes(retcode)) retcode = 0;
  const okOut = listOf(args.success_stdout).map(String);
  const okErr = listOf(args.success_stderr).map(String);
  if (retcode !== 0 && (okOut.some((s) => r.stdout.includes(s)) || okErr.some((s) => r.stderr.includes(s)))) retcode = 0;
  let stdout = r.stdout;
  let stderr = r.stderr;
  if (args.ignore_timeout === true && retcode === 1 && stdout.includes('Timed out after')) retcode = 0;
  if (args.hide_output === true) {
    stdout = '';
    stderr = '';
  }
  ret.changes = { pid: r.pid, retcode, stdout, stderr };
  ret.result = retcode === 0;
  ret.comment = comment;
  ret.new_state = { retcode, stdout, stderr };
  return ret;
}

/** How run and script word their comments, and what a test run reports. */
interface CommandKind {
  /** Salt quotes the command with `"` for cmd.run and `'` for cmd.script. */
  quote: string;
  /** A test run lists the command under changes (cmd.run). */
  testChanges: boolean;
  /** The result is named after `stateful`'s test_name in a test run (cmd.script). */
  testNamed: boolean;
}

/**
 * What cmd.run and cmd.script share around the command: `stateful`, the env check, the test
 * short-circuit, the working directory check and the result's tail. `exec` runs the command
 * into `ret` and says whether it ran (false: it set the failure itself).
 */
async function commandState(
  args: Record<string, unknown>,
  ctx: StateContext,
  kind: CommandKind,
  exec: (ret: StateReturn, name: string, env: Record<string, string> | undefined, comment: string) => Promise<boolean>,
): Promise<StateReturn> {
  const { stateful, testName } = statefulOf(args.stateful);
  const name = ctx.test && testName ? testName : String(args.name);
  const ret: StateReturn = { name: kind.testNamed ? name : String(args.name), changes: {}, result: false, comment: '', old_state: null };
  const env = envDict(args.env);
  if (env === 'invalid') {
    ret.comment = "Invalidly-formatted 'env' parameter. See documentation.";
    return ret;
  }
  const q = kind.quote;
  if (ctx.test && !testName) {
    ret.result = null;
    ret.comment = `Command ${q}${name}${q} would have been executed`;
    if (kind.testChanges) ret.changes = { cmd: name };
    return stateful ? reinterpretStateful(ret) : ret;
  }
  if (typeof args.cwd === 'string' && args.cwd && !isDir(args.cwd)) {
    ret.comment = `Desired working directory "${args.cwd}" is not available`;
    return ret;
  }
  if (!(await exec(ret, name, env, `Command ${q}${name}${q} run`))) return ret;
  const retcode = (ret.changes as { retcode: number }).retcode;
  const out = stateful ? reinterpretStateful(ret) : ret;
  if (ctx.test && retcode === 0 && Object.keys(out.changes).length > 0) out.result = null;
  return out;
}

/** cmd.run: run a command every time; exit code 0 is success. */
function run(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  return commandState(args, ctx, { quote: '"', testChanges: true, testNamed: false }, async (ret, name, env, comment) => {
    await execute(ret, name, args, ctx, env, comment);
    return true;
  });
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** cmd.wait: nothing by itself; its mod_watch runs the command when a watched state changed. */
async function wait(args: Record<string, unknown>): Promise<StateReturn> {
  return { name: String(args.name), changes: {}, result: true, comment: '', old_state: null, new_state: null };
}

/** cmd.script: fetch a script (salt://), render it if asked, run it with its arguments. */
function script(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  return commandState(args, ctx, { quote: "'", testChanges: false, testNamed: true }, async (ret, name, env, comment) => {
    const source = asString(args.source) ?? name.split(/\s+/)[0];
    let scriptArgs = asString(args.args);
    if (!scriptArgs && name.trim().split(/\s+/).length > 1) scriptArgs = name.trim().split(/\s+(.*)/s)[1];
    const saltenv = asString(args.saltenv) ?? ctx.low.__env__ ?? 'base';
    let body: Buffer | undefined;
    if (source.startsWith('salt://')) body = await ctx.files.get(source, saltenv);
    else if (existsSync(source)) body = await readFile(source);
    if (body === undefined) {
      ret.comment = `Unable to cache script ${source} from saltenv '${saltenv}'`;
      return false;
    }
    let text = body.toString('utf8');
    if (typeof args.template === 'string') {
      // Salt's cp.get_template: saltenv, defaults and context only
      text = await renderFileTemplate(ctx, { engine: args.template, text, source, saltenv, vars: {}, defaults: args.defaults, context: args.context });
    }
    const dir = await mkdtemp(join(tmpdir(), 'brine-script-'));
    const file = join(dir, source.split('/').pop() || 'script');
    try {
      await writeFile(file, text, { mode: 0o700 });
      if (typeof args.runas === 'string' && args.runas) {
        const user = await getUser(args.runas, ctx.cmd);
        if (user) {
          await chown(dir, user.uid, user.gid);
          await chown(file, user.uid, user.gid);
          await chmod(dir, 0o700);
        }
      }
      const command = scriptArgs ? `${shellQuote(file)} ${scriptArgs}` : shellQuote(file);
      await execute(ret, command, args, ctx, env, comment);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return true;
  });
}

/** Salt's `cmd` states. */
export function cmdModule(): StateModule {
  return {
    name: 'cmd',
    available: () => ({ available: true }),
    functions: {
      run: { args: COMMON_ARGS, run },
      wait: { args: COMMON_ARGS, run: wait },
      watch: { args: COMMON_ARGS, run: wait },
      script: { args: SCRIPT_ARGS, run: script },
      wait_script: { args: SCRIPT_ARGS, run: wait },
    },
    async modWatch(args, ctx) {
      const sfun = String(args.sfun);
      const rest = { ...args };
      delete rest.sfun;
      if (sfun === 'run' || sfun === 'wait' || sfun === 'watch') return run(rest, ctx);
      if (sfun === 'script' || sfun === 'wait_script') return script(rest, ctx);
      return {
        name: String(args.name),
        changes: {},
        result: false,
        comment: `cmd.${sfun} does not work with the watch requisite, please use cmd.wait or cmd.wait_script`,
      };
    },
  };
}
