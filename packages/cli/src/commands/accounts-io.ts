import { parseArgs, type ParseArgsConfig } from 'node:util';
import { cliErrors } from '../errors.js';
import { fromParseError } from '../parse-errors.js';

/** parseArgs with the CLI's usage errors. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (e) {
    throw fromParseError(e, usage);
  }
}

export function usageError(detail: string, usage: string): Error {
  return cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage });
}

/**
 * A password from stdin (`--password-stdin`, the first line), or asked on the terminal without
 * echo; never from the command line, where `ps` and the shell history would show it.
 */
export async function readPassword(fromStdin: boolean, prompt: string): Promise<string> {
  if (fromStdin || !process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += String(chunk);
    return text.split(/\r?\n/)[0] ?? '';
  }
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const out = rl as unknown as { _writeToOutput: (s: string) => void };
  process.stderr.write(prompt);
  out._writeToOutput = () => undefined;
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
  return answer;
}
