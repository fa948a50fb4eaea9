import { spawn } from 'node:child_process';

/**
 * The `#!mjs` renderer: a tree author's JavaScript module (its default export, given the render's
 * context, returns high data) runs in a fresh Node process per render, under Node's permission
 * model with nothing allowed: no file read or write, no child processes, threads, addons or
 * WASI, an empty environment, a heap limit, a wall-clock limit and a bounded output. The
 * process's only way out is its standard output. Node 24 has no network permission: a module can
 * still open connections, which is why the master runs it only when `mjs_renderer` says so.
 */

export interface MjsRenderLimits {
  timeoutMs: number;
  /** Bytes of JSON the module's result may take. */
  maxBytes?: number;
  /** The process's V8 heap, in MiB. */
  heapMb?: number;
}

export type MjsRenderResult = { ok: true; value: unknown } | { ok: false; message: string };

// Runs inside the confined process: reads {source, context} from stdin, imports the source as a
// data: URL (no file is read), calls its default export and prints {ok, value} or {ok, message}.
const RUNNER = `
let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const { source, context } = JSON.parse(input);
let out;
try {
  const mod = await import('data:text/javascript;base64,' + Buffer.from(source).toString('base64'));
  if (typeof mod.default !== 'function') throw new Error('the module has no default export function (export default (ctx) => ({ ... }))');
  const value = await mod.default(context);
  out = JSON.stringify({ ok: true, value: value === undefined ? null : value });
} catch (e) {
  out = JSON.stringify({ ok: false, message: e instanceof Error ? e.message : String(e) });
}
process.stdout.write(out, () => process.exit(0));
`;

/** Renders `source` with `context` in a confined process; the result is plain JSON data or why not. */
export function renderMjs(source: string, context: unknown, limits: MjsRenderLimits): Promise<MjsRenderResult> {
  const maxBytes = limits.maxBytes ?? 16 << 20;
  return new Promise((resolve) => {
    const permission = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
    const args = [permission, '--no-addons', `--max-old-space-size=${limits.heapMb ?? 256}`, '--input-type=module', '-e', RUNNER];
    const child = spawn(process.execPath, args, {
      env: {},
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let why: string | undefined;
    const stop = (reason: string) => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(`it ran longer than ${limits.timeoutMs / 1000} s`), limits.timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) stop(`its result is larger than ${maxBytes} bytes`);
      else chunks.push(c);
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-2000)));
    child.stdin.on('error', () => undefined);
    child.on('error', (err) => stop(err.message));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (why) return resolve({ ok: false, message: why });
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as MjsRenderResult;
        if (typeof parsed === 'object' && parsed !== null && typeof parsed.ok === 'boolean') return resolve(parsed);
      } catch {
        // below: the process said nothing usable
      }
      resolve({ ok: false, message: `the render process ended (exit ${code}) without a result${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}` });
    });
    child.stdin.end(JSON.stringify({ source, context }));
  });
}
