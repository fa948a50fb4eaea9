import t from 'tap';
import { resolveConnectArgs } from '../src/host/mysql/connection-options.js';

/**
 * Where a mysql state connects, as libmysqlclient (Salt's MySQLdb) decides it: the unix socket
 * only for no host or `localhost`. The mysql formula names both connection_host and
 * connection_unix_socket; Salt dials the host over TCP (recorded with the oracle: "Lost connection
 * to server at 'handshake: ...'" from the remote address, not "Can't connect to local server
 * through socket").
 */
t.test('a host other than localhost is dialled over TCP even with a socket named', async (t) => {
  const both = await resolveConnectArgs({ connection_host: '10.1.2.3', connection_unix_socket: '/run/x.sock', connection_user: 'u' }, async () => undefined);
  t.equal(both.host, '10.1.2.3');
  t.equal(both.socketPath, undefined);
  const local = await resolveConnectArgs({ connection_host: 'localhost', connection_unix_socket: '/run/x.sock' }, async () => undefined);
  t.equal(local.socketPath, '/run/x.sock');
  t.equal(local.host, undefined);
  const none = await resolveConnectArgs({}, async () => undefined);
  t.equal(none.socketPath, '/run/mysqld/mysqld.sock');
  const tcp = await resolveConnectArgs({ connection_host: 'db1' }, async () => undefined);
  t.same([tcp.host, tcp.socketPath], ['db1', undefined]);
});
