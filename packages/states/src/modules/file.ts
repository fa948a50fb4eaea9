import type { StateModule } from '@brine/core';
import { absent } from './file/absent.js';
import { append, appendArgs } from './file/append.js';
import { directory, directoryArgs } from './file/directory.js';
import { managed, managedArgs } from './file/managed.js';
import { replace, replaceArgs } from './file/replace.js';
import { symlink, symlinkArgs } from './file/symlink.js';

/** Salt's `file` states: files, directories, symlinks and edits in place. */
export function fileModule(): StateModule {
  return {
    name: 'file',
    available: () => ({ available: true }),
    functions: {
      managed: { args: managedArgs, run: managed },
      directory: { args: directoryArgs, run: directory },
      absent: { args: {}, run: absent },
      append: { args: appendArgs, run: append },
      symlink: { args: symlinkArgs, run: symlink },
      replace: { args: replaceArgs, run: replace },
    },
    // A watched file state has nothing to restart: it just runs again (Salt's file.mod_watch
    // is only for file.serialize-like accumulators).
  };
}
