import type { main as Main } from './main.js';

/** The CLI on this process's streams and environment (bin.ts, and the startup snapshot's main). */
export async function runMain(main: typeof Main, argv: string[]): Promise<void> {
  // `brine jobs list | head`: the reader left; the command's output is not wanted any more
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(process.exitCode ?? 0);
    });
  }
  process.exitCode = await main(argv, {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
  });
}
