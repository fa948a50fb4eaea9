import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { which } from '../src/index.js';

t.test(
  'which: the first executable regular file on PATH; folders, plain files and missing names are not',
  { skip: process.platform === 'win32' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'brine-which-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const [a, b] = [join(dir, 'a'), join(dir, 'b')];
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'tool'), 'not executable');
    writeFileSync(join(b, 'tool'), '#!/bin/sh\n');
    chmodSync(join(b, 'tool'), 0o755);
    mkdirSync(join(a, 'folder'));
    writeFileSync(join(a, 'file'), '');
    const saved = process.env.PATH;
    t.teardown(() => void (process.env.PATH = saved));
    process.env.PATH = [join(a, 'file'), a, b].join(':');
    t.equal(which('tool'), join(b, 'tool'), 'a file without x permission is passed over');
    t.equal(which('folder'), null, 'a folder is not a program');
    t.equal(which('brine-no-such-tool'), null, 'missing everywhere, through a PATH entry that is a file');
    t.equal(which(join(b, 'tool')), join(b, 'tool'), 'a path to an executable is itself');
    t.equal(which(join(a, 'tool')), null);
    t.equal(which(''), null);
  },
);
