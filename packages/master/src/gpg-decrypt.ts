import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { PGP_MESSAGE } from '@brine/compiler';
import { copyKeyOrder, type Diagnostic } from '@brine/core';
import { masterErrors } from './errors.js';

/**
 * Salt's gpg renderer, the master's half: compile workers may not run processes, so they render
 * pillar with the PGP blocks untouched and name them (PillarResult.gpg); the master decrypts
 * those blocks here with the system `gpg` and the keyring in gpg_keydir, in child processes (never
 * on the event loop), a few at a time, each under a timeout. Plain texts are kept in memory by
 * the hash of their block for the master's lifetime and never leave this module but in the
 * pillar they are decrypted into: nothing here logs a value.
 */
export interface GpgOptions {
  keydir: string;
  /** gpg processes at once. */
  concurrency?: number;
  /** Milliseconds one decryption may take. */
  timeoutMs?: number;
  /** The gpg program (tests may point at another). */
  gpg?: string;
}

type Outcome = { ok: true; plain: string } | { ok: false; key: string; reason: string };

export class GpgDecryptor {
  private readonly opts: Required<GpgOptions>;
  private readonly plain = new Map<string, Promise<Outcome>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(opts: GpgOptions) {
    this.opts = { concurrency: 4, timeoutMs: 10_000, gpg: 'gpg', ...opts };
  }

  /**
   * The pillar with every block the render named decrypted in place (Salt strips the trailing
   * newlines of a value that held one). A block that fails is an error naming its key id and
   * file: the caller fails this minion's pillar.
   */
  async decryptPillar(
    pillar: Record<string, unknown>,
    blocks: Array<[string, string]>,
  ): Promise<{ pillar: Record<string, unknown>; diagnostics: Diagnostic[] }> {
    const out = await this.decryptIn([pillar], blocks, 'pillar');
    return { pillar: (out.values[0] ?? {}) as Record<string, unknown>, diagnostics: out.diagnostics };
  }

  /** decryptPillar for any values (a compile's high data and low chunks); none on a failure. */
  async decryptIn(values: unknown[], blocks: Array<[string, string]>, what: string): Promise<{ values: unknown[]; diagnostics: Diagnostic[] }> {
    const files = new Map(blocks);
    const outcomes = new Map<string, Outcome>();
    await Promise.all(blocks.map(async ([b]) => outcomes.set(b, await this.decrypt(b))));
    const diagnostics: Diagnostic[] = [];
    for (const [b, o] of outcomes) {
      if (o.ok) continue;
      const file = files.get(b) ?? '?';
      diagnostics.push(
        masterErrors.diag(
          'BRINE_ERR_MASTER_GPG_DECRYPT',
          { file, key: o.key, keydir: this.opts.keydir, reason: o.reason, what, fails: what === 'pillar' ? 'pillar' : 'compile' },
          { file },
        ),
      );
    }
    if (diagnostics.length > 0) return { values: [], diagnostics };
    return { values: values.map((v) => replaceBlocks(v, outcomes)), diagnostics };
  }

  /** One block's plain text, or why not; the same block is decrypted once. */
  decrypt(block: string): Promise<Outcome> {
    const hash = createHash('sha256').update(block).digest('hex');
    let p = this.plain.get(hash);
    if (!p) {
      p = this.queued(() => this.runGpg(block));
      this.plain.set(hash, p);
      // a failure is asked again next time (a key may have been imported meanwhile)
      p.then(
        (o) => {
          if (!o.ok) this.plain.delete(hash);
        },
        () => this.plain.delete(hash),
      );
    }
    return p;
  }

  private async queued<T>(fn: () => Promise<T>): Promise<T> {
    while (this.running >= this.opts.concurrency) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private runGpg(block: string): Promise<Outcome> {
    return new Promise((resolve) => {
      const args = ['--homedir', this.opts.keydir, '--batch', '--no-tty', '--quiet', '--status-fd', '2', '--decrypt'];
      const child = spawn(this.opts.gpg, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: this.opts.timeoutMs, killSignal: 'SIGKILL' });
      const out: Buffer[] = [];
      let err = '';
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => {
        if (err.length < 16_384) err += d.toString('utf8');
      });
      child.stdin.on('error', () => {});
      child.on('error', (e) => resolve({ ok: false, key: keyOf(err), reason: `gpg cannot run: ${e.message}` }));
      child.on('close', (code, signal) => {
        if (code === 0) return resolve({ ok: true, plain: Buffer.concat(out).toString('utf8') });
        const reason = signal ? `gpg did not finish within ${this.opts.timeoutMs} ms` : whyNot(err);
        resolve({ ok: false, key: keyOf(err), reason });
      });
      child.stdin.end(block);
    });
  }
}

/** The key a message is encrypted to, from gpg's status lines. */
function keyOf(status: string): string {
  const keys = [...status.matchAll(/^\[GNUPG:\] (?:NO_SECKEY|ENC_TO) ([0-9A-F]{8,40})/gm)].map((m) => m[1]!);
  return keys.length ? [...new Set(keys)].join(', ') : 'unknown';
}

/** gpg's own reason, without the status lines. */
function whyNot(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.startsWith('gpg: ') && !l.includes('encrypted with'));
  return (lines.at(-1) ?? 'gpg failed').replace(/^gpg: /, '');
}

function replaceBlocks(value: unknown, outcomes: Map<string, Outcome>): unknown {
  if (typeof value === 'string') {
    let hit = false;
    const out = value.replace(PGP_MESSAGE, (b) => {
      const o = outcomes.get(b);
      if (!o?.ok) return b;
      hit = true;
      return o.plain;
    });
    return hit ? out.replace(/\n+$/, '') : value;
  }
  if (Array.isArray(value)) return value.map((v) => replaceBlocks(v, outcomes));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = replaceBlocks(v, outcomes);
    copyKeyOrder(value as Record<string, unknown>, out);
    return out;
  }
  return value;
}
