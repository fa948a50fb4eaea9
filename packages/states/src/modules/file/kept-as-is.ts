import type { StateReturn } from '@brine/core';
import { enforceMeta, metaChanges, modeOf, type MetaWant } from '../../util/fs-meta.js';
import { stat } from '../../util/sync-fs.js';

/**
 * file.managed on an existing file whose contents stay as they are: `replace: False`, or a remote
 * source whose source_hash the file already matches (Salt checks that before any download). As in
 * Salt, only owner and mode are managed, before any source is looked at, and the comments are
 * that branch's own. Undefined when the path is not an existing file (the normal path runs).
 */
export async function keptAsIs(ret: StateReturn, name: string, want: MetaWant, test: boolean): Promise<StateReturn | undefined> {
  const st = await stat(name).catch(() => undefined);
  if (!st?.isFile()) return undefined;
  const changes = metaChanges(st, want);
  ret.changes = changes;
  const changed = Object.keys(changes).length > 0;
  if (test) {
    ret.result = changed ? null : true;
    ret.comment =
      want.mode !== undefined && modeOf(st) !== want.mode
        ? `File ${name} will be updated with permissions ${want.mode} from its current state of ${modeOf(st)}`
        : `File ${name} not updated`;
    return ret;
  }
  if (changed) await enforceMeta(name, st, want);
  ret.comment = changed ? '' : `File ${name} exists with proper permissions. No changes made.`;
  return ret;
}
