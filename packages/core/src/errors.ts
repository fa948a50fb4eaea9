import type { Diagnostic, Severity, SourcePos } from './types.js';

/** A table of coded errors: code -> message template with `{placeholders}`. */
export type ErrorTable = Record<string, string>;

export interface ErrorArgs {
  [key: string]: unknown;
}

function fill(template: string, args: ErrorArgs): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in args ? String(args[key]) : whole));
}

/** An exception that carries a code from a package's table; boundaries print it as is. */
export class BrineError extends Error {
  readonly code: string;
  readonly details: ErrorArgs;
  readonly diagnostics: Diagnostic[];

  constructor(code: string, message: string, details: ErrorArgs = {}, diagnostics: Diagnostic[] = []) {
    super(message);
    this.name = 'BrineError';
    this.code = code;
    this.details = details;
    this.diagnostics = diagnostics;
  }
}

/**
 * Binds a package's error table: `errors.make(code, args)` builds a BrineError,
 * `errors.diag(code, args, where)` a Diagnostic, both with the filled message.
 */
export function defineErrors<T extends ErrorTable>(table: T) {
  type Code = keyof T & string;
  return {
    table,
    message(code: Code, args: ErrorArgs = {}): string {
      return fill(table[code], args);
    },
    make(code: Code, args: ErrorArgs = {}, diagnostics: Diagnostic[] = []): BrineError {
      return new BrineError(code, fill(table[code], args), args, diagnostics);
    },
    diag(
      code: Code,
      args: ErrorArgs = {},
      where: Partial<SourcePos> & { sls?: string; env?: string; id?: string } = {},
      severity: Severity = 'error',
    ): Diagnostic {
      const d: Diagnostic = { code, severity, message: fill(table[code], args) };
      if (where.file !== undefined) d.file = where.file;
      if (where.line !== undefined) d.line = where.line;
      if (where.column !== undefined) d.column = where.column;
      if (where.sls !== undefined) d.sls = where.sls;
      if (where.env !== undefined) d.env = where.env;
      if (where.id !== undefined) d.id = where.id;
      return d;
    },
  };
}

export const coreErrors = defineErrors({
  BRINE_ERR_CORE_INTERNAL: 'internal error: {detail}',
  BRINE_ERR_CORE_BAD_INPUT: '{detail}',
  BRINE_ERR_CORE_SCHEDULE: "schedule '{name}' ({where}): {detail}",
});

/** Turns anything thrown into a BrineError; used at boundaries (CLI main, HTTP, WS). */
export function toBrineError(err: unknown): BrineError {
  if (err instanceof BrineError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  const wrapped = coreErrors.make('BRINE_ERR_CORE_INTERNAL', { detail });
  if (err instanceof Error && err.stack) wrapped.stack = err.stack;
  return wrapped;
}

/** `file:line:col: CODE message` — the one way a diagnostic is shown to a person. */
export function formatDiagnostic(d: Diagnostic): string {
  let where = '';
  if (d.file) {
    where = d.file;
    if (d.line !== undefined) where += `:${d.line}`;
    if (d.line !== undefined && d.column !== undefined) where += `:${d.column}`;
    where += ': ';
  }
  // The ID is named once: messages that already quote it need no tag.
  const id = d.id !== undefined && !d.message.includes(`'${d.id}'`) ? ` [ID ${d.id}]` : '';
  return `${where}${d.severity === 'warning' ? 'warning' : 'error'} ${d.code}${id}: ${d.message}`;
}

export function hasErrors(diagnostics: Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
