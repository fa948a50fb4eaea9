import type { Logger, LoggerOptions } from 'pino';
import { packageRequire } from './host/install-root.js';
import { loggerLevel } from './salt-habits.js';

// Loaded when the first logger is made: most `brine` commands (`brine local`) log nothing, and
// pino with pino-pretty is about 50 modules to read at every start.
const load = (name: string): unknown => packageRequire('core')(name);

export type { Logger };

/** `json`: one JSON object a line (for machines); `pretty`: readable lines; `auto`: pretty on a terminal. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];

export interface BrineLoggerOptions extends LoggerOptions {
  format?: LogFormat;
}

/**
 * Logs on stderr, so that stdout stays the command's output: JSON when read by a program,
 * human-readable lines (pino-pretty, written synchronously so nothing is lost at exit) on a
 * terminal, unless `format` (or $BRINE_LOG_FORMAT) forces one.
 */
export function createLogger(options: BrineLoggerOptions = {}): Logger {
  const { format: asked, ...rest } = options;
  const format = asked && asked !== 'auto' ? asked : ((process.env.BRINE_LOG_FORMAT as LogFormat | undefined) ?? 'auto');
  const usePretty = format === 'pretty' || (format === 'auto' && process.stderr.isTTY === true);
  const opts: LoggerOptions = { level: loggerLevel(process.env.BRINE_LOG_LEVEL ?? '') ?? 'info', base: { app: 'brine' }, ...rest };
  if (typeof opts.level === 'string') opts.level = loggerLevel(opts.level) ?? opts.level;
  const pino = load('pino') as typeof import('pino');
  if (!usePretty) return pino(opts, pino.destination(2));
  const pretty = load('pino-pretty') as typeof import('pino-pretty');
  const stream = pretty({
    destination: 2,
    sync: true,
    colorize: process.stderr.isTTY === true && !process.env.NO_COLOR,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,app,event,role',
    singleLine: true,
  });
  return pino(opts, stream);
}
