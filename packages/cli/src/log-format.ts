import { LOG_FORMATS, type LogFormat } from '@brine/core';
import { cliErrors } from './errors.js';

/** The --log-format of the daemons; anything else is a usage error, not a quiet default. */
export function logFormat(value: string | undefined, usage: string): LogFormat {
  if (value === undefined) return 'auto';
  if (!(LOG_FORMATS as readonly string[]).includes(value)) {
    throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `unknown log format '${value}' (one of ${LOG_FORMATS.join(', ')})`, usage });
  }
  return value as LogFormat;
}
