import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BrineError, type FileClient } from '@brine/core';
import { parseSaltUrl } from '@brine/states';

export type MasterRequest = (op: string, args: Record<string, unknown>) => Promise<unknown>;

interface FileGetReply {
  path: string;
  saltenv: string;
  hash: string;
  data?: string;
}

/**
 * `salt://` through the master's file server. Files are cached under `cacheDir/<env>/<path>`;
 * each get sends the cached copy's hash and the master answers with the bytes only when they
 * changed. Unsafe paths are refused by the master (and never written outside the cache here).
 */
export function remoteFileClient(request: MasterRequest, cacheDir: string, jid?: string): FileClient {
  const hashes = new Map<string, string>();
  return {
    async get(url: string, env: string): Promise<Buffer | undefined> {
      const { path: rel, saltenv } = parseSaltUrl(url);
      const useEnv = saltenv ?? env;
      const local = path.join(cacheDir, useEnv, ...rel.split('/').filter((s) => s !== '' && s !== '.'));
      const inCache = path.relative(cacheDir, local);
      const safe = !inCache.startsWith('..') && !path.isAbsolute(inCache);
      let have: string | undefined;
      let cached: Buffer | undefined;
      if (safe) {
        try {
          cached = readFileSync(local);
          have = hashes.get(local) ?? createHash('sha256').update(cached).digest('hex');
        } catch {
          cached = undefined;
        }
      }
      const reply = (await request('file.get', { path: rel, saltenv: useEnv, ...(have ? { have } : {}), ...(jid ? { jid } : {}) })) as FileGetReply | null;
      if (!reply) return undefined;
      if (reply.data === undefined) {
        if (cached && have === reply.hash) return cached;
        throw new BrineError('BRINE_ERR_MINION_FILE', `the master sent no data for ${url}`);
      }
      const data = Buffer.from(reply.data, 'base64');
      if (createHash('sha256').update(data).digest('hex') !== reply.hash) {
        throw new BrineError('BRINE_ERR_MINION_FILE', `${url}: the bytes received do not match their hash`);
      }
      if (safe) {
        mkdirSync(path.dirname(local), { recursive: true });
        const tmp = `${local}.${process.pid}.tmp`;
        writeFileSync(tmp, data);
        renameSync(tmp, local);
        hashes.set(local, reply.hash);
      }
      return data;
    },
    async list(prefix: string, env: string): Promise<string[]> {
      const listed = (await request('file.list', { prefix, saltenv: env, ...(jid ? { jid } : {}) })) as Array<{ path: string }>;
      return listed.map((f) => f.path);
    },
  };
}
