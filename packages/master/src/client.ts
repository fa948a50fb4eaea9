import { existsSync, readFileSync } from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import { userInfo } from 'node:os';
import { BrineError, type Diagnostic } from '@brine/core';
import { loadMasterConfig } from './config.js';
import { masterErrors } from './errors.js';
import type { BusEvent } from './event-bus.js';

export interface ApiTarget {
  url: string;
  token: string;
  /** PEM certificates trusted for an https URL, beside the system CAs. */
  ca?: string;
}

/** Where a master's config is looked for when neither --config nor $BRINE_MASTER_CONFIG names one. */
export const DEFAULT_MASTER_CONFIG = '/etc/brine/master.yaml';

/**
 * Where the operator API is and the token to use: BRINE_API_URL / BRINE_API_TOKEN when set,
 * else the master config (`--config`, $BRINE_MASTER_CONFIG, /etc/brine/master.yaml) —
 * api_host, api_port and the token file it names.
 */
export function resolveApi(configFile: string | undefined, env: NodeJS.ProcessEnv = process.env): ApiTarget {
  let file = configFile || env.BRINE_MASTER_CONFIG || undefined;
  const from = configFile ? '--config' : file ? '$BRINE_MASTER_CONFIG' : undefined;
  if (!file && existsSync(DEFAULT_MASTER_CONFIG)) file = DEFAULT_MASTER_CONFIG;
  const cfg = loadMasterConfig(file);
  const host = cfg.api_host === '0.0.0.0' ? '127.0.0.1' : cfg.api_host;
  const scheme = cfg.api_tls_cert ? 'https' : 'http';
  const url = env.BRINE_API_URL || `${scheme}://${host.includes(':') ? `[${host}]` : host}:${cfg.api_port}`;
  // a self-signed api_tls_cert is its own CA; api_tls_ca (or $BRINE_API_CA) names the one that signed it
  const caFile = env.BRINE_API_CA || cfg.api_tls_ca || cfg.api_tls_cert || undefined;
  let ca: string | undefined;
  if (caFile) {
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch (err) {
      throw masterErrors.make('BRINE_ERR_MASTER_UNREACHABLE', { url, detail: `cannot read the CA certificate ${caFile}: ${(err as Error).message}` });
    }
  }
  let token = env.BRINE_API_TOKEN || undefined;
  if (!token) {
    try {
      token = readFileSync(cfg.token_file, 'utf8').trim();
    } catch (err) {
      throw masterErrors.make('BRINE_ERR_MASTER_UNAUTHORIZED', {}, [
        {
          code: 'BRINE_ERR_MASTER_UNAUTHORIZED',
          severity: 'error',
          message:
            `cannot read the API token ${cfg.token_file}: ${(err as Error).message}\n` +
            (file
              ? `  the master config used: ${file} (from ${from ?? 'the default path'})\n`
              : `  no master config found: not given with --config, $BRINE_MASTER_CONFIG unset, no ${DEFAULT_MASTER_CONFIG}\n`) +
            `  point brine at your master with --config MASTER_CONFIG (the file 'brine master' runs with), or export BRINE_MASTER_CONFIG=MASTER_CONFIG,\n` +
            `  or set BRINE_API_URL and BRINE_API_TOKEN; the token is written to <data_dir>/api_token when the master starts`,
        },
      ]);
    }
  }
  return { url: url.replace(/\/$/, ''), token, ...(ca ? { ca } : {}) };
}

/**
 * One request to the API over http or https (with the target's CA beside the system ones). The
 * http stack is loaded here, not at import: `brine local` imports this module and never sends.
 */
async function send(
  target: ApiTarget,
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: string,
  signal?: AbortSignal,
): Promise<http.IncomingMessage> {
  const u = new URL(target.url + route);
  const secure = u.protocol === 'https:';
  const [client, tls] = secure ? await Promise.all([import('node:https'), import('node:tls')]) : [await import('node:http'), undefined];
  const opts: https.RequestOptions = {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
    ...(signal ? { signal } : {}),
    ...(tls && target.ca ? { ca: [...tls.rootCertificates, target.ca] } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = client.request(u, opts, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

async function readAll(res: http.IncomingMessage): Promise<string> {
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) text += chunk as string;
  return text;
}

function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'api';
  }
}

/** A small client of the operator API, used by the CLI verbs and the tests. */
export class MasterClient {
  readonly target: ApiTarget;
  constructor(target: ApiTarget) {
    this.target = target;
  }

  private async call<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
    let status: number;
    let text: string;
    try {
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.target.token}`,
        // who asked: recorded as the job's user (the token says only that the caller may)
        'x-brine-user': operatorName(),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      };
      const res = await send(this.target, method, route, headers, body !== undefined ? JSON.stringify(body) : undefined);
      status = res.statusCode ?? 500;
      text = await readAll(res);
    } catch (err) {
      throw masterErrors.make('BRINE_ERR_MASTER_UNREACHABLE', { url: this.target.url, detail: (err as Error).message });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = { code: 'BRINE_ERR_MASTER_INTERNAL', message: text };
    }
    if (status >= 400) {
      const e = data as { code?: string; message?: string; diagnostics?: Diagnostic[] };
      throw new BrineError(e.code ?? 'BRINE_ERR_MASTER_INTERNAL', e.message ?? `HTTP ${status}`, {}, e.diagnostics ?? []);
    }
    return data as T;
  }

  get<T = unknown>(route: string): Promise<T> {
    return this.call<T>('GET', route);
  }

  post<T = unknown>(route: string, body: unknown = {}): Promise<T> {
    return this.call<T>('POST', route, body);
  }

  /** Streams bus events whose tag matches `tag` until `signal` aborts or the master goes away. */
  async events(tag: string | undefined, onEvent: (ev: BusEvent) => void, signal?: AbortSignal, onOpen?: () => void): Promise<void> {
    const q = tag ? `?tag=${encodeURIComponent(tag)}` : '';
    let res: http.IncomingMessage;
    try {
      res = await send(this.target, 'GET', `/v1/events${q}`, { authorization: `Bearer ${this.target.token}` }, undefined, signal);
    } catch (err) {
      if (signal?.aborted) return;
      throw masterErrors.make('BRINE_ERR_MASTER_UNREACHABLE', { url: this.target.url, detail: (err as Error).message });
    }
    if ((res.statusCode ?? 500) >= 400) {
      const text = await readAll(res).catch(() => '');
      let body: { code?: string; message?: string } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // not JSON: the status says it
      }
      throw new BrineError(body.code ?? 'BRINE_ERR_MASTER_INTERNAL', body.message ?? `HTTP ${res.statusCode}`);
    }
    onOpen?.();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        // a chunk may hold a thousand events (the master writes a turn's events at once): the
        // rest of the buffer is cut once per chunk, not once per event
        let at = 0;
        let i: number;
        while ((i = buf.indexOf('\n\n', at)) >= 0) {
          const block = buf.slice(at, i);
          at = i + 2;
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) onEvent(JSON.parse(data) as BusEvent);
        }
        buf = buf.slice(at);
      }
    } catch (err) {
      if (!signal?.aborted) throw err;
    }
  }
}

export type { JobReport, MissingMinion } from './jobs.js';
export type { JobRow, ReturnRow } from './store.js';
export type { BusEvent } from './event-bus.js';
