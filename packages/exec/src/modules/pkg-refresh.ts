import { execErrors } from '../errors.js';
import type { ExecContext, ExecFunction } from '../function.js';
import { APT_ENV } from '../host/apt.js';

/**
 * pkg.refresh_db as Salt's aptpkg: `apt-get -q update`, answered with {source: True (fetched),
 * False (ignored or failed), None (unchanged)} read from its Get/Ign/Hit/Err lines (a later line
 * of the same source wins). Formulas call it through module.run (apt-formula's apt.refresh_db).
 */

/** Whether apt's lists were refreshed less than `seconds` ago (their folder's mtime, read on the host the commands run on). */
async function listsFresh(seconds: number, ctx: ExecContext): Promise<boolean> {
  const r = await ctx.cmd.run(['stat', '-c', '%Y', '/var/lib/apt/lists'], { signal: ctx.signal });
  const mtime = Number(r.stdout.trim());
  return r.retcode === 0 && Number.isFinite(mtime) && mtime + seconds > Date.now() / 1000;
}

/** Salt's reading of apt-get update's output: source line -> fetched/ignored/unchanged. */
export function parseAptUpdate(out: string): { sources: Record<string, boolean | null>; errors: string[] } {
  const sources: Record<string, boolean | null> = {};
  const errors: string[] = [];
  for (const line of out.split(/\r?\n/)) {
    const cols = line.trim().split(/\s+/).filter(Boolean);
    if (!cols.length) continue;
    let ident = cols.slice(1).join(' ');
    if (cols[0]!.includes('Get')) {
      ident = ident.replace(/ \[.+B\]$/, '');
      sources[ident] = true;
    } else if (cols[0]!.includes('Ign')) sources[ident] = false;
    else if (cols[0]!.includes('Hit')) sources[ident] = null;
    else if (cols[0]!.includes('Err')) {
      sources[ident] = false;
      errors.push(ident);
    }
  }
  return { sources, errors };
}

export const pkgRefreshFunctions: ExecFunction[] = [
  {
    name: 'pkg.refresh_db',
    doc: "Runs apt-get update; returns {source: True fetched, False ignored/failed, None unchanged} (cache_valid_time=seconds skips a fresh refresh; failhard=True fails on a source's error).",
    params: [
      { name: 'cache_valid_time', type: 'any', default: 0 },
      { name: 'failhard', type: 'any', default: false },
    ],
    extraKwargs: true,
    run: async (a, ctx) => {
      const valid = Number(a.cache_valid_time ?? 0);
      if (valid > 0 && (await listsFresh(valid, ctx))) return { return: {} };
      const r = await ctx.cmd.run(['apt-get', '-q', 'update'], { env: APT_ENV, signal: ctx.signal });
      if (r.retcode !== 0) throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun: 'pkg.refresh_db', detail: r.stderr });
      const { sources, errors } = parseAptUpdate(r.stdout);
      if (errors.length && (a.failhard === true || a.failhard === 'True' || a.failhard === 'true')) {
        throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun: 'pkg.refresh_db', detail: `Error getting repos: ${errors.join(', ')}` });
      }
      return { return: sources };
    },
  },
];
