import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** JSON logs on stderr, so that stdout stays the command's output. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { level: process.env.BRINE_LOG_LEVEL ?? 'info', base: { app: 'brine' }, ...options },
    pino.destination(2),
  );
}
