import { execFileSync } from 'node:child_process';
import t from 'tap';
import { parseHostSpec, targetPath } from '../src/bootstrap/host-spec.js';
import { remoteCommand, shQuote } from '../src/bootstrap/remote-scripts.js';

t.test('host specs: [ID=][user@]host[:port], the id defaulting to the host as written', async (t) => {
  t.same(parseHostSpec('web1'), { spec: 'web1', id: 'web1', host: 'web1' });
  t.same(parseHostSpec('root@web1.example:2222'), { spec: 'root@web1.example:2222', id: 'web1.example', user: 'root', host: 'web1.example', port: 2222 });
  t.same(parseHostSpec('db=admin@[2001:db8::5]:22'), { spec: 'db=admin@[2001:db8::5]:22', id: 'db', user: 'admin', host: '2001:db8::5', port: 22 });
  t.same(parseHostSpec('v6=2001:db8::5').host, '2001:db8::5', 'a bare IPv6 address has no port');
  t.throws(() => parseHostSpec('2001:db8::5'), /give one as ID=/, 'an address that is no minion id asks for one');
  for (const bad of ['-oProxyCommand=x', 'root@', 'a b', 'web1:0', 'we;b', '$(id)@web1', 'x/y=web1']) {
    t.throws(() => parseHostSpec(bad), { code: 'BRINE_ERR_CLI_USAGE' }, bad);
  }
});

t.test('target paths: absolute, plain characters, {id} filled in', async (t) => {
  t.equal(targetPath('/srv/minions/{id}/', 'web1', '--prefix'), '/srv/minions/web1');
  for (const bad of ['opt/brine', '/opt/$HOME', '/opt/a b', '/opt/../etc', "/opt/'x'"]) {
    t.throws(() => targetPath(bad, 'web1', '--prefix'), { code: 'BRINE_ERR_CLI_USAGE' }, bad);
  }
});

t.test('remote commands pass values as words, never as shell text', async (t) => {
  const values = ["it's", '$(touch /nonexistent/x)', 'a\nb', '`id`', ' spaced '];
  const out = execFileSync('sh', ['-c', remoteCommand('printf "[%s]" "$@"', values)], { encoding: 'utf8' });
  t.equal(out, values.map((v) => `[${v}]`).join(''));
  t.equal(shQuote(''), "''");
});
