import type { StateModule } from '@brine/core';
import { absent } from './file/absent.js';
import { append, appendArgs } from './file/append.js';
import { directory, directoryArgs } from './file/directory.js';
import { managed, managedArgs } from './file/managed.js';
import { contentsDataArgs, withContentsData } from './file/contents-data.js';
import { prepend, prependArgs } from './file/prepend.js';
import { withExpandedName } from './file/expand-user.js';
import { replace, replaceArgs } from './file/replace.js';
import { symlink, symlinkArgs } from './file/symlink.js';
import { accumulated, accumulatedArgs, blockreplace, blockreplaceArgs } from './file/block.js';
import { comment, commentArgs, uncomment, uncommentArgs } from './file/comment.js';
import { keyvalue, keyvalueArgs } from './file/keyvalue.js';
import { line, lineArgs } from './file/line.js';
import { recurse, recurseArgs } from './file/recurse.js';
import { serialize, serializeArgs } from './file/serialize.js';
import { copy, copyArgs, exists, missing, renameArgs, renameState, touch, touchArgs } from './file/simple.js';

/** Salt's `file` states: files, directories, symlinks and edits in place. */
export function fileModule(): StateModule {
  const mod: StateModule = {
    name: 'file',
    available: () => ({ available: true }),
    functions: {
      managed: { args: { ...managedArgs, ...contentsDataArgs }, extraArgs: true, run: (a, ctx) => withContentsData(a, ctx, managed) },
      directory: { args: directoryArgs, run: directory },
      absent: { args: {}, run: absent },
      append: { args: appendArgs, run: append },
      prepend: { args: prependArgs, run: prepend },
      symlink: { args: symlinkArgs, run: symlink },
      replace: { args: replaceArgs, run: replace },
      recurse: { args: recurseArgs, extraArgs: true, run: recurse },
      serialize: { args: serializeArgs, run: serialize },
      line: { args: lineArgs, run: line },
      keyvalue: { args: keyvalueArgs, run: keyvalue },
      comment: { args: commentArgs, run: comment },
      uncomment: { args: uncommentArgs, run: uncomment },
      blockreplace: { args: blockreplaceArgs, run: blockreplace },
      accumulated: { args: accumulatedArgs, run: accumulated },
      copy: { args: copyArgs, run: copy },
      rename: { args: renameArgs, run: renameState },
      touch: { args: touchArgs, run: touch },
      exists: { args: {}, extraArgs: true, run: exists },
      missing: { args: {}, extraArgs: true, run: missing },
    },
    // A watched file state has nothing to restart: it just runs again (Salt's file.mod_watch
    // is only for file.serialize-like accumulators).
  };
  for (const [k, f] of Object.entries(mod.functions)) mod.functions[k] = withExpandedName(f);
  return mod;
}
