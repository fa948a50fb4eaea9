import { readFileSync } from 'node:fs';
import { collectGrains, coreErrors, yamlLib, type Grains } from '@brine/core';

/** YAML 1.1 by the yaml library: how a data file given on the command line is read. */
export const yamlText = (text: string): unknown => yamlLib().parse(text, { version: '1.1' });

/**
 * The grains `brine local` sees: what this host says about itself, then the grains file the
 * minion's grains.setval writes (`persisted`), then the minion config's `grains:`, then
 * `--grains FILE` on top.
 */
export function localGrains(id: string, grainsFile?: string, configGrains?: Grains, persisted: Grains = {}, parse = yamlText): Grains {
  if (!grainsFile) return collectGrains(id, { ...persisted, ...configGrains });
  let extra: unknown;
  try {
    extra = parse(readFileSync(grainsFile, 'utf8'));
  } catch (e) {
    throw coreErrors.make('BRINE_ERR_CORE_BAD_INPUT', { detail: `cannot read grains file ${grainsFile}: ${(e as Error).message}` });
  }
  if (extra !== null && (typeof extra !== 'object' || Array.isArray(extra))) {
    throw coreErrors.make('BRINE_ERR_CORE_BAD_INPUT', { detail: `grains file ${grainsFile} must hold a dictionary` });
  }
  return collectGrains(id, { ...persisted, ...configGrains, ...((extra ?? {}) as Grains) });
}
