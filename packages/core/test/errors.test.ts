import t from 'tap';
import { defineErrors, formatDiagnostic, toBrineError, BrineError, chunkTag } from '../src/index.js';

t.test('coded errors fill their templates', async (t) => {
  const errs = defineErrors({ BRINE_ERR_X_Y: "bad '{what}' in {where}" });
  const e = errs.make('BRINE_ERR_X_Y', { what: 'thing', where: 'file' });
  t.ok(e instanceof BrineError);
  t.equal(e.code, 'BRINE_ERR_X_Y');
  t.equal(e.message, "bad 'thing' in file");
  const d = errs.diag('BRINE_ERR_X_Y', { what: 'a', where: 'b' }, { file: 'x.sls', line: 3, column: 5, id: 'foo' });
  t.equal(formatDiagnostic(d), "x.sls:3:5: error BRINE_ERR_X_Y [ID foo]: bad 'a' in b");
});

t.test('anything thrown becomes a coded error', async (t) => {
  const e = toBrineError(new TypeError('boom'));
  t.equal(e.code, 'BRINE_ERR_CORE_INTERNAL');
  t.match(e.message, /boom/);
  t.equal(toBrineError(e), e);
});

t.test('tag string', async (t) => {
  t.equal(chunkTag({ state: 'file', __id__: 'ldap', name: '/etc/x', fun: 'managed' }), 'file_|-ldap_|-/etc/x_|-managed');
});
