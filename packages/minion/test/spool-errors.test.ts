import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ResultSpool } from '../src/spool.js';

/** A spool error names spool.db and its path, whether opening it or using it fails. */

t.test('a damaged spool.db is named when it is opened', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-spool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'spool.db');
  writeFileSync(file, 'not a database, only some text that is long enough to be read as a header');
  t.throws(() => new ResultSpool(file), { code: 'BRINE_ERR_MINION_SPOOL', message: new RegExp(`${file} \\(spool\\.db\\)`) });
});

t.test('an operation that fails names the file too', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-spool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'spool.db');
  const spool = new ResultSpool(file);
  spool.put({ jid: '1', fun: 'test.ping', success: true, retcode: 0, return: true, started: 'x', finished: 'y' });
  t.equal(spool.size(), 1);
  spool.close();
  t.throws(() => spool.size(), { code: 'BRINE_ERR_MINION_SPOOL', message: /spool\.db/ });
});
