/**
 * `slsutil.serialize` and `slsutil.deserialize`: Salt's serializers called from a template
 * (formulas' `_mapdata` dumps). Pure, so they answer wherever the template renders, with no host
 * to ask. Only the serializers and options Brine writes exactly as Salt are taken; any other is
 * an error naming it rather than text that merely looks alike.
 */
import { loadYaml } from './yaml-load.js';
import { pyJson, toYaml } from './serialize.js';
import { splitArgs, str, truthy } from './python.js';

type Options = Record<string, unknown>;

/** Salt's clean_kwargs: keywords starting with `__` are the loader's, not the serializer's. */
function cleanKwargs(kwargs: Options): Options {
  return Object.fromEntries(Object.entries(kwargs).filter(([k]) => !k.startsWith('__')));
}

function checkOptions(serializer: string, fn: string, opts: Options, known: string[]): void {
  const bad = Object.keys(opts).find((k) => !known.includes(k));
  if (bad !== undefined) throw new Error(`slsutil.${fn}: option '${bad}' of the ${serializer} serializer is not supported by Brine`);
}

function notFound(serializer: string): Error {
  return new Error(`Serializer '${serializer}' not found.`);
}

const SERIALIZERS: Record<string, { dump(obj: unknown, o: Options): string; load(text: string, o: Options): unknown }> = {
  yaml: {
    // salt.serializers.yaml: yaml.dump with default_flow_style None, without allow_unicode
    dump(obj, o) {
      checkOptions('yaml', 'serialize', o, ['default_flow_style', 'allow_unicode']);
      const flow = o.default_flow_style === undefined || o.default_flow_style === null ? null : truthy(o.default_flow_style);
      return toYaml(obj, flow, truthy(o.allow_unicode));
    },
    load(text, o) {
      checkOptions('yaml', 'deserialize', o, []);
      const r = loadYaml(text, { fast: false });
      if (r.error) throw new Error(r.error.message);
      return r.value ?? {};
    },
  },
  json: {
    // salt.utils.json.dumps: json.dumps with ensure_ascii False unless asked
    dump(obj, o) {
      checkOptions('json', 'serialize', o, ['indent', 'sort_keys', 'ensure_ascii']);
      const indent = o.indent === undefined || o.indent === null ? null : Number(o.indent);
      return pyJson(obj, indent, truthy(o.sort_keys), truthy(o.ensure_ascii));
    },
    load(text, o) {
      checkOptions('json', 'deserialize', o, []);
      return JSON.parse(text);
    },
  },
};

/** `salt['slsutil.serialize'](serializer, obj, **options)`. */
export function slsutilSerialize(...raw: unknown[]): string {
  const { args, kwargs } = splitArgs(raw);
  const serializer = str(args[0] ?? kwargs.serializer);
  const obj = args.length > 1 ? args[1] : kwargs.obj;
  const rest = { ...kwargs };
  delete rest.serializer;
  delete rest.obj;
  const ser = SERIALIZERS[serializer];
  if (!ser) throw notFound(serializer);
  return ser.dump(obj, cleanKwargs(rest));
}

/** `salt['slsutil.deserialize'](serializer, stream_or_string, **options)`. */
export function slsutilDeserialize(...raw: unknown[]): unknown {
  const { args, kwargs } = splitArgs(raw);
  const serializer = str(args[0] ?? kwargs.serializer);
  const text = args.length > 1 ? args[1] : kwargs.stream_or_string;
  const rest = { ...kwargs };
  delete rest.serializer;
  delete rest.stream_or_string;
  const ser = SERIALIZERS[serializer];
  if (!ser) throw notFound(serializer);
  return ser.load(str(text), cleanKwargs(rest));
}
