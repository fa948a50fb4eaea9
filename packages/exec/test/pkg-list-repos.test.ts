import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { AptSourcesList, aptListRepos, execRegistry } from '../src/index.js';

/**
 * pkg.list_repos as Salt's aptpkg lists the sources (python-apt's parse): one-line entries of
 * sources.list and sources.list.d/*.list by URI; a commented-out entry is listed as disabled; a
 * line python-apt finds invalid only because of its signed-by option still counts; other
 * invalid lines and deb822 .sources files are not listed. Real files under a temp root.
 */
t.test('the sources by URI, with the fields Salt gives', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'brine-repos-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'etc/apt/sources.list.d'), { recursive: true });
  writeFileSync(
    path.join(root, 'etc/apt/sources.list'),
    [
      'deb http://deb.debian.org/debian bookworm main contrib',
      '# deb-src http://deb.debian.org/debian bookworm main',
      '# just a comment',
      'not a source line',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(root, 'etc/apt/sources.list.d/extra.list'),
    'deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] https://repo.example/apt stable main\n',
  );
  writeFileSync(path.join(root, 'etc/apt/sources.list.d/modern.sources'), 'Types: deb\nURIs: http://x.example/\nSuites: s\nComponents: main\n');
  const repos = aptListRepos(await new AptSourcesList(root).load());
  t.same(Object.keys(repos), ['http://deb.debian.org/debian', 'https://repo.example/apt']);
  t.same(repos['http://deb.debian.org/debian'], [
    {
      file: '/etc/apt/sources.list',
      comps: ['main', 'contrib'],
      disabled: false,
      dist: 'bookworm',
      type: 'deb',
      uri: 'http://deb.debian.org/debian',
      line: 'deb http://deb.debian.org/debian bookworm main contrib',
      architectures: [],
      signedby: '',
    },
    {
      file: '/etc/apt/sources.list',
      comps: ['main'],
      disabled: true,
      dist: 'bookworm',
      type: 'deb-src',
      uri: 'http://deb.debian.org/debian',
      line: '# deb-src http://deb.debian.org/debian bookworm main',
      architectures: [],
      signedby: '',
    },
  ]);
  t.match(repos['https://repo.example/apt'], [{ file: '/etc/apt/sources.list.d/extra.list', signedby: '/usr/share/keyrings/x.gpg', dist: 'stable' }]);
});

t.test('pkg.list_repos is an execution function (so a template asks the host for it)', async (t) => {
  t.ok(execRegistry().get('pkg.list_repos'), 'registered');
});
