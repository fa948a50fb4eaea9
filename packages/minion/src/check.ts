import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { toBrineError } from '@brine/core';
import { authPayload, encode, EXPORTER_LABEL, parseFrame } from '@brine/protocol';
import WebSocket from 'ws';
import { loadMinionConfig, type MinionConfig } from './config.js';
import { explainConnectFailure } from './connect-failure.js';
import { formatMaster, type MasterAddress } from './master-list.js';

/** One step of `brine minion --check` (and of `brine doctor`): WARN does not stop the check, FAIL does. */
export interface CheckStep {
  step: string;
  status: 'ok' | 'WARN' | 'FAIL';
  detail: string;
  hint?: string;
}

/** Seconds each network step may take. */
const STEP_TIMEOUT_MS = 5000;

const norm = (s: string) => s.replace(/[^0-9a-f]/gi, '').toUpperCase();

/**
 * `brine minion --check`: what stands between this minion and its master, in the order it is
 * met: the config (which file, parse, unknown options), then for each master DNS, TCP, TLS
 * (version; a plain HTTP server there is the API port), the master's certificate against the
 * pinned fingerprint, and this minion's key state on the master. Each step goes to `report` as
 * it ends; the check stops at the first failure. It changes nothing on this host (no key made,
 * no fingerprint recorded); a hello does record an unknown key as pending on the master, as the
 * minion's first start would. Returns whether every step passed.
 */
export async function checkMinion(file: string | undefined, overrides: Record<string, unknown>, report: (s: CheckStep) => void): Promise<boolean> {
  const warnings: string[] = [];
  let config: MinionConfig;
  try {
    config = loadMinionConfig(file, overrides, (_event, msg) => warnings.push(msg));
  } catch (err) {
    const e = toBrineError(err);
    report({ step: 'config', status: 'FAIL', detail: `${e.code}: ${e.message}` });
    return false;
  }
  report({
    step: 'config',
    status: 'ok',
    detail: `${file ?? 'no file (--master given)'}: id ${config.id}, master ${config.masters.map(formatMaster).join(', ')}`,
  });
  for (const w of warnings) report({ step: 'config', status: 'WARN', detail: w });
  for (const master of config.masters) {
    const seen: Seen = {};
    for (const step of [checkDns, checkTcp, checkTls, checkFingerprint, checkKey]) {
      const s = await step(config, master, seen);
      report(s);
      if (s.status === 'FAIL') return false;
    }
  }
  return true;
}

/** What an earlier step of one master found: its certificate's fingerprint. */
interface Seen {
  fingerprint?: string;
}

type MasterStep = (config: MinionConfig, master: MasterAddress, seen: Seen) => Promise<CheckStep>;

const checkDns: MasterStep = async (_config, master) => {
  if (net.isIP(master.host)) return { step: 'dns', status: 'ok', detail: `${master.host} is an address` };
  try {
    const addrs = await lookup(master.host, { all: true });
    return { step: 'dns', status: 'ok', detail: `${master.host} resolves to ${addrs.map((a) => a.address).join(', ')}` };
  } catch (err) {
    const { reason, hint } = explainConnectFailure(err as Error, master);
    return { step: 'dns', status: 'FAIL', detail: reason, hint };
  }
};

const checkTcp: MasterStep = (_config, master) =>
  new Promise((resolve) => {
    const socket = net.connect({ host: master.host, port: master.port, timeout: STEP_TIMEOUT_MS });
    const fail = (err: Error) => {
      socket.destroy();
      const { reason, hint } = explainConnectFailure(err, master);
      resolve({ step: 'tcp', status: 'FAIL', detail: `${formatMaster(master)}: ${reason}`, hint });
    };
    socket.once('connect', () => {
      socket.destroy();
      resolve({ step: 'tcp', status: 'ok', detail: `${formatMaster(master)} accepts connections` });
    });
    socket.once('timeout', () => fail(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    socket.once('error', fail);
  });

/** The pinned fingerprint and where it comes from, as the minion reads it (connection.ts). */
function pinned(config: MinionConfig): { want?: string; source: string } {
  if (config.master_finger) return { want: config.master_finger, source: 'master_finger in the minion config' };
  const file = path.join(config.pki_dir, 'master_finger');
  if (existsSync(file)) return { want: readFileSync(file, 'utf8').trim(), source: `recorded on first contact in ${file}` };
  return { source: '' };
}

const checkTls: MasterStep = (_config, master, seen) =>
  new Promise((resolve) => {
    const socket = tls.connect({
      host: master.host,
      port: master.port,
      rejectUnauthorized: false,
      timeout: STEP_TIMEOUT_MS,
      ...(net.isIP(master.host) ? {} : { servername: master.host }),
    });
    socket.once('secureConnect', () => {
      const version = socket.getProtocol() ?? 'TLS';
      seen.fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.destroy();
      resolve({ step: 'tls', status: 'ok', detail: `${version} with ${formatMaster(master)}` });
    });
    socket.once('timeout', () => socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    socket.once('error', (err) => {
      const { reason, hint } = explainConnectFailure(err, master);
      resolve({ step: 'tls', status: 'FAIL', detail: reason, hint });
    });
  });

const checkFingerprint: MasterStep = (config, _master, seen) => {
  const got = seen.fingerprint ?? '';
  const { want, source } = pinned(config);
  if (!want) {
    return Promise.resolve<CheckStep>({
      step: 'fingerprint',
      status: 'WARN',
      detail: `certificate ${got} is not pinned: the minion will trust it on first contact`,
      hint: `compare it with the master's (\`brine key finger\` on the master shows it) and set master_finger: ${got}`,
    });
  }
  if (norm(want) !== norm(got)) {
    return Promise.resolve<CheckStep>({
      step: 'fingerprint',
      status: 'FAIL',
      detail: `certificate ${got} does not match the pinned ${want} (${source})`,
      hint: 'this is not your master, or it changed its certificate: check the address, then update master_finger or delete the recorded file',
    });
  }
  return Promise.resolve<CheckStep>({ step: 'fingerprint', status: 'ok', detail: `${got} matches (${source})` });
};

/** Hello (as a `brine call` session, beside the daemon's) and, when accepted, the signed challenge. */
const checkKey: MasterStep = (config, master) => {
  const priv = path.join(config.pki_dir, 'minion.pem');
  if (!existsSync(priv)) {
    return Promise.resolve({
      step: 'key',
      status: 'FAIL',
      detail: `unknown: no key in ${config.pki_dir} yet`,
      hint: 'the minion makes its key at its first start (`brine minion`); then accept it on the master',
    });
  }
  const privateKey = createPrivateKey(readFileSync(priv));
  const pub = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  const { id } = config;
  return new Promise((resolve) => {
    let done = false;
    let failure: Error | undefined;
    const end = (s: CheckStep) => {
      if (done) return;
      done = true;
      resolve(s);
      ws.terminate();
    };
    const ws = new WebSocket(`wss://${formatMaster(master)}/ws`, { rejectUnauthorized: false, handshakeTimeout: STEP_TIMEOUT_MS, perMessageDeflate: false });
    let binding = '';
    ws.on('open', () => {
      const socket = (ws as unknown as { _socket: tls.TLSSocket })._socket;
      binding = socket.exportKeyingMaterial(32, EXPORTER_LABEL, Buffer.alloc(0)).toString('base64');
      ws.send(encode({ type: 'hello', minion: id, pub, version: 'check', call: true }));
    });
    ws.on('message', (data) => {
      const r = parseFrame(data.toString(), 1 << 20);
      if (!r.ok) return;
      const msg = r.msg;
      if (msg.type === 'challenge') {
        ws.send(encode({ type: 'auth', sig: sign(null, authPayload(id, msg.nonce, binding), privateKey).toString('base64') }));
      } else if (msg.type === 'welcome') {
        end({ step: 'key', status: 'ok', detail: `accepted: authenticated as ${id}` });
      } else if (msg.type === 'key_state') {
        const hint = {
          pending: `accept it on the master: \`brine key accept ${id}\` (compare \`brine key finger ${id}\` first)`,
          rejected: `the master's operator rejected it: \`brine key delete ${id}\` there lets this minion enrol again`,
          denied: `the master holds another key for ${id}: delete it there (\`brine key delete ${id}\`) if this host is ${id}`,
        }[msg.state];
        end({ step: 'key', status: 'FAIL', detail: `${msg.state} on the master ${formatMaster(master)}`, hint });
      } else if (msg.type === 'error') {
        end({ step: 'key', status: 'FAIL', detail: `${msg.code}: ${msg.message}` });
      }
    });
    ws.on('error', (err) => (failure = err));
    ws.on('close', () => {
      const { reason, hint } = explainConnectFailure(failure, master);
      end({ step: 'key', status: 'FAIL', detail: `no answer from the minion channel: ${reason}`, hint });
    });
  });
};
