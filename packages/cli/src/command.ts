/** A `brine` verb. Each lives in its own file under commands/ and is listed in commands/index.ts. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[], io: CommandIO): Promise<number>;
}
