import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { BrineError, type Diagnostic } from '@brine/core';
import { loadMasterConfig } from './config.js';
import { masterErrors } from './errors.js';
import type { BusEvent } from './event-bus.js';

export interface ApiTarget {
  url: string;
  token: string;
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
  const url = env.BRINE_API_URL || `http://${host.includes(':') ? `[${host}]` : host}:${cfg.api_port}`;
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
  return { url: url.replace(/\/$/, ''), token };
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
    let res: Response;
    try {
      res = await fetch(this.target.url + route, {
        method,
        headers: {
          authorization: `Bearer ${this.target.token}`,
          // who asked: recorded as the job's user (the token says only that the caller may)
          'x-brine-user': operatorName(),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw masterErrors.make('BRINE_ERR_MASTER_UNREACHABLE', {
        url: this.target.url,
        detail: (err as { cause?: Error }).cause?.message ?? (err as Error).message,
      });
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = { code: 'BRINE_ERR_MASTER_INTERNAL', message: text };
    }
    if (!res.ok) {
      const e = data as { code?: string; message?: string; diagnostics?: Diagnostic[] };
      throw new BrineError(e.code ?? 'BRINE_ERR_MASTER_INTERNAL', e.message ?? `HTTP ${res.status}`, {}, e.diagnostics ?? []);
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
    let res: Response;
    try {
      res = await fetch(`${this.target.url}/v1/events${q}`, {
        headers: { authorization: `Bearer ${this.target.token}` },
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) return;
      throw masterErrors.make('BRINE_ERR_MASTER_UNREACHABLE', { url: this.target.url, detail: (err as Error).message });
    }
    if (!res.ok || !res.body) {
      const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
      throw new BrineError(body.code ?? 'BRINE_ERR_MASTER_INTERNAL', body.message ?? `HTTP ${res.status}`);
    }
    onOpen?.();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) onEvent(JSON.parse(data) as BusEvent);
        }
      }
    } catch (err) {
      if (!signal?.aborted) throw err;
    }
  }
}

export type { JobReport, MissingMinion } from './jobs.js';
export type { JobRow, ReturnRow } from './store.js';
export type { BusEvent } from './event-bus.js';
