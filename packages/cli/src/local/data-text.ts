import { yamlLib } from '@brine/core';
import { fastYaml } from '@brine/jinja/yaml-fast';

/**
 * A data file given on the command line (`--grains`, `--pillar`), read as YAML 1.1 by the yaml
 * library. JSON (as grains dumps are) is read without loading that library where both readings
 * agree: valid JSON the fast YAML reader also accepts (it refuses duplicate keys, `__proto__`,
 * tabs and escapes other than \" \\ \n \t), with no exponent (1e3 is a number in one, not the
 * other), no `\/` and no Unicode line separator.
 */
export function parseDataText(text: string): unknown {
  if (/^\s*[{[]/.test(text) && !/\\\/|[\u2028\u2029\u0085]/.test(text)) {
    let exponent = false;
    let value: unknown;
    try {
      value = JSON.parse(text, (_key, v: unknown, context?: { source?: string }) => {
        if (typeof v === 'number' && !/^-?\d+(?:\.\d+)?$/.test(context?.source ?? 'e')) exponent = true;
        return v;
      });
    } catch {
      value = undefined;
    }
    if (value !== undefined && !exponent && fastYaml(text, 0)) return value;
  }
  return yamlLib().parse(text, { version: '1.1' });
}
