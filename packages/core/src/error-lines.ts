import { formatDiagnostic } from './errors.js';
import type { Diagnostic } from './types.js';

/** The errors among `diagnostics`, one formatted line each (file, line, ID), as outputs list them. */
export function errorLines(diagnostics: Diagnostic[]): string[] {
  return diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
}
