import { formatMaster, type MasterAddress } from './master-list.js';

/**
 * Why a try to reach the master failed, in words an operator acts on: the cause read from the
 * socket's error and what to check. The usual mistakes: the master not running or another port
 * (refused), a name that does not resolve, the API port given as the minion port (it answers
 * plain HTTP, or HTTPS without the minion channel), a firewall dropping packets (timeout).
 */
export function explainConnectFailure(err: Error | undefined, master: MasterAddress): { reason: string; hint: string } {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const message = err?.message ?? 'the connection closed before the master answered';
  const where = formatMaster(master);
  const apiPort =
    "This looks like the master's API port (api_port, 4507 by default): the minion port is the master's `port:` (4506 by default); set master_port in the minion config to it";
  if (code === 'ECONNREFUSED') {
    return {
      reason: 'connection refused',
      hint: `Nothing listens on port ${master.port} of ${master.host}: is the master running, and is its \`port:\` ${master.port}? Check master_port in the minion config and the master's log`,
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') {
    return {
      reason: `the name ${master.host} does not resolve (DNS: ${code})`,
      hint: `Check \`master:\` in the minion config${master.host === 'salt' ? " ('salt' is Salt's default name: set master: to your master's address)" : ''} and the host's resolver`,
    };
  }
  const tls = /wrong version number|packet length too long|http request|unknown protocol/i.exec(message);
  if (tls || code === 'EPROTO') {
    return { reason: `${where} answered without TLS (${tls?.[0] ?? code}): a plain HTTP server`, hint: apiPort };
  }
  const status = /Unexpected server response: (\d+)/.exec(message)?.[1];
  if (status) return { reason: `an HTTPS server answered ${status} instead of the minion channel`, hint: apiPort };
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || /timed out/i.test(message)) {
    return {
      reason: `no answer (${code || message})`,
      hint: `A firewall may drop the packets, or ${master.host} is not the master's address; check that port ${master.port} is open`,
    };
  }
  if (code === 'ECONNRESET') {
    return {
      reason: 'the connection was reset during the TLS handshake',
      hint: "Is this the master's minion port? The minion port is the master's `port:` (4506 by default), not its api_port (4507 by default)",
    };
  }
  return { reason: message, hint: 'Check master and master_port in the minion config' };
}
