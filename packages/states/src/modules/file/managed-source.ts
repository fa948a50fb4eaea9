import { isAbsolute } from 'node:path';
import type { StateContext } from '@brine/core';
import { readFile } from '../../util/sync-fs.js';
import { fetchRemote, isRemote } from './remote-source.js';

/**
 * The bytes of file.managed's `source` and the source they came from (the first of a list that
 * can be had), or the comment Salt fails with: a single missing salt:// file names its saltenv, a
 * local path (and anything that is neither salt://, file:// nor a remote URL reads as one) "does
 * not exist", and a list of which none is found fails as Salt's source_list raises, under
 * "Unable to manage file: ".
 */
export async function sourceBytes(
  sources: string[],
  args: Record<string, unknown>,
  saltenv: string,
  ctx: StateContext,
): Promise<{ body: Buffer; source: string } | { error: string }> {
  const single = sources.length === 1;
  for (const src of sources) {
    let body: Buffer | undefined;
    if (src.startsWith('salt://')) {
      body = await ctx.files.get(src, saltenv);
      if (!body && single) return { error: `Source file ${src} not found in saltenv '${saltenv}'` };
    } else if (isRemote(src)) {
      const got = await fetchRemote(src, args, String(args.name), !single);
      if (got && 'error' in got) return got;
      body = got;
    } else {
      const path = src.startsWith('file://') ? src.slice('file://'.length) : src;
      body = isAbsolute(path) ? await readFile(path).catch(() => undefined) : undefined;
      if (!body && single) return { error: `Local file source ${src} does not exist` };
    }
    if (body) return { body, source: src };
  }
  return { error: 'Unable to manage file: none of the specified sources were found' };
}
