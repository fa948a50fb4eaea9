import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { isIPv4, type BlockList } from 'node:net';
import { globMatch } from '@brine/compiler';
import type { KeyState, KeyStateMsg } from '@brine/protocol';
import { plainAddress } from './plain-address.js';
import { parseNetworks } from './config.js';
import { masterErrors } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { KeyRow } from './store.js';
import { NewKeyLimiter, sourceOf } from './new-key-limiter.js';
import type { KeyOp, StoreBackend } from './store-backend.js';

/** An Ed25519 SPKI in DER is these 12 bytes and the 32 of the key: one encoding only. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Fingerprint of a minion public key: SHA-256 of its DER (SPKI), colon-separated hex. The PEM's
 * own DER when it is that fixed Ed25519 form (what export would write: 3 µs instead of 31, at
 * every admission), else OpenSSL's export of the key.
 */
export function keyFingerprint(key: KeyObject, pem?: string): string {
  const body = pem?.trim().slice('-----BEGIN PUBLIC KEY-----'.length, -'-----END PUBLIC KEY-----'.length);
  const fromPem = body === undefined ? undefined : Buffer.from(body, 'base64');
  const der = fromPem?.length === 44 && fromPem.subarray(0, 12).equals(ED25519_SPKI_PREFIX) ? fromPem : key.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
}

/**
 * The public key a minion presents: only an Ed25519 key as SPKI PEM. createPublicKey alone would
 * also take a private key (deriving its public half) or a certificate.
 */
export function parsePublicKey(minion: string, pub: string): KeyObject {
  const bad = (detail: string) => masterErrors.make('BRINE_ERR_MASTER_BAD_KEY', { minion, detail });
  const text = pub.trim();
  if (!/^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----$/.test(text)) {
    throw bad('not a single PEM public key (-----BEGIN PUBLIC KEY-----)');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem', type: 'spki' });
  } catch (err) {
    throw bad(`unreadable: ${(err as Error).message}`);
  }
  if (key.type !== 'public' || key.asymmetricKeyType !== 'ed25519') throw bad(`a ${key.asymmetricKeyType ?? 'unknown'} key, not ed25519`);
  return key;
}

export interface KeyManagerOptions {
  autoAccept: boolean;
  autosign: string[];
  autosignNetworks?: string[];
  /** Key rows a minute from one source address, and from all. */
  newKeysPerMinute?: number;
  newKeysPerMinuteTotal?: number;
}

export type Admission = { state: 'accepted'; key: KeyObject } | { state: KeyStateMsg['state'] };

export interface KeyChange {
  minion: string;
  fingerprint: string;
  from: KeyState;
  to: KeyState | 'deleted';
}

/**
 * salt-key semantics. One key may be accepted per id; a different key presenting a known id is
 * denied and never replaces the first (delete the old key to let the new one in).
 */
export class KeyManager {
  private readonly store: StoreBackend;
  private readonly events: EventBus;
  private readonly opts: KeyManagerOptions;
  constructor(store: StoreBackend, events: EventBus, opts: KeyManagerOptions) {
    this.store = store;
    this.events = events;
    this.opts = opts;
    this.networks = parseNetworks(opts.autosignNetworks ?? []);
    this.limiter = new NewKeyLimiter({ perSource: opts.newKeysPerMinute ?? 60, total: opts.newKeysPerMinuteTotal ?? 600 });
  }

  /** Hellos that may add a pending or denied key row, per source address and in all. */
  private readonly limiter: NewKeyLimiter;

  private takeRowToken(minion: string, address: string | undefined): void {
    const verdict = this.limiter.take(address);
    if (verdict === 'ok') return;
    const [rate, scope, option] =
      verdict === 'source'
        ? [this.opts.newKeysPerMinute ?? 60, `from ${sourceOf(address) || 'this address'}`, 'new_keys_per_minute']
        : [this.opts.newKeysPerMinuteTotal ?? 600, 'from all addresses', 'new_keys_per_minute_total'];
    throw masterErrors.make('BRINE_ERR_MASTER_KEY_RATE_LIMITED', { minion, rate, scope, option });
  }

  /** Hellos of one id are decided one at a time, so two keys arriving together cannot both land as the first. */
  private readonly admitting = new Map<string, Promise<unknown>>();

  private readonly networks: BlockList;

  /** Is this peer address inside one of the autosign networks? */
  private inNetworks(address?: string): boolean {
    if (!address || !this.opts.autosignNetworks?.length) return false;
    const a = plainAddress(address);
    return this.networks.check(a, isIPv4(a) ? 'ipv4' : 'ipv6');
  }

  /** Decides what a hello with this id and key gets; records unknown keys. */
  admit(minion: string, pub: string, address?: string): Promise<Admission> {
    const before = this.admitting.get(minion) ?? Promise.resolve();
    const turn = before.then(
      () => this.decide(minion, pub, address),
      () => this.decide(minion, pub, address),
    );
    this.admitting.set(minion, turn);
    const forget = () => {
      if (this.admitting.get(minion) === turn) this.admitting.delete(minion);
    };
    turn.then(forget, forget);
    return turn;
  }

  /**
   * A hello is decided on the rows read; on a shared store another master may land a first key
   * between that read and this one's insert, and the store's one-live-key rule refuses the
   * insert: the hello is decided again on the rows as they now are (its key then denied).
   */
  private async decide(minion: string, pub: string, address?: string): Promise<Admission> {
    const key = parsePublicKey(minion, pub);
    const fingerprint = keyFingerprint(key, pub);
    for (let tries = 0; ; tries++) {
      const landed = await this.decideOnRows(minion, pub, key, fingerprint, await this.store.keysOf(minion), address);
      if (landed) return landed;
      if (tries === 2) throw masterErrors.make('BRINE_ERR_MASTER_KEY_RACE', { minion, fingerprint });
    }
  }

  private async decideOnRows(minion: string, pub: string, key: KeyObject, fingerprint: string, rows: KeyRow[], address?: string): Promise<Admission | null> {
    const mine = rows.find((r) => r.fingerprint === fingerprint);
    const others = rows.filter((r) => r.fingerprint !== fingerprint && r.state !== 'denied');
    if (mine) {
      if (mine.state === 'denied' && others.length === 0) {
        // the key that made this one denied is gone: the operator gets to decide afresh
        return await this.land(minion, pub, key, fingerprint, true, address);
      }
      if (mine.state === 'accepted') return { state: 'accepted', key };
      return { state: mine.state };
    }
    if (others.length > 0) {
      this.takeRowToken(minion, address);
      // the first key stays, pending or not, as in Salt: the one an operator accepts is the one
      // that asked first, never a later one swapped in behind its back. One denied key per id is
      // enough to show an impostor tried: the newest one
      for (const r of rows) if (r.state === 'denied') await this.store.deleteKey(minion, r.fingerprint);
      await this.store.insertKey(minion, pub, fingerprint, 'denied');
      this.events.fire('brine/auth', { id: minion, act: 'denied', fingerprint });
      return { state: 'denied' };
    }
    return await this.land(minion, pub, key, fingerprint, false, address);
  }

  /** Null when the store refused a new first key: another master's landed meanwhile. */
  private async land(minion: string, pub: string, key: KeyObject, fingerprint: string, exists: boolean, address?: string): Promise<Admission | null> {
    const auto = this.opts.autoAccept || this.opts.autosign.some((p) => globMatch(minion, p)) || this.inNetworks(address);
    const state: KeyState = auto ? 'accepted' : 'pending';
    // keys the operator's policy accepts are not throttled: a fleet may enroll at once
    if (!exists && !auto) this.takeRowToken(minion, address);
    try {
      if (exists) await this.store.setKeyState(minion, fingerprint, state);
      else if (!(await this.store.insertKey(minion, pub, fingerprint, state))) return null;
    } finally {
      if (state === 'accepted') this.keysChanged();
    }
    this.events.fire('brine/auth', { id: minion, act: state, fingerprint });
    if (state === 'accepted') return { state, key };
    return { state };
  }

  /**
   * Accepts a key the operator brought from the host itself (`brine bootstrap` reads it over SSH):
   * Salt's preseeded key, with no pending step. The same key again changes nothing; a different
   * key while one is accepted for the id is refused, as a hello with it would be denied.
   */
  async preseed(minion: string, pub: string): Promise<{ fingerprint: string; changed: boolean }> {
    const fingerprint = keyFingerprint(parsePublicKey(minion, pub), pub);
    const rows = await this.store.keysOf(minion);
    const other = rows.find((r) => r.state === 'accepted' && r.fingerprint !== fingerprint);
    if (other) throw masterErrors.make('BRINE_ERR_MASTER_KEY_CONFLICT', { minion, accepted: other.fingerprint, offered: fingerprint });
    const mine = rows.find((r) => r.fingerprint === fingerprint);
    if (mine?.state === 'accepted') return { fingerprint, changed: false };
    try {
      // the operator read this key on the host itself: a pending or rejected one from the
      // network gives way to it (one live key per id)
      const ops: KeyOp[] = rows
        .filter((r) => r.fingerprint !== fingerprint && r.state !== 'denied')
        .map((r) => ({ minion, fingerprint: r.fingerprint, to: 'denied' }));
      if (ops.length) await this.store.changeKeys(ops);
      if (mine) await this.store.setKeyState(minion, fingerprint, 'accepted');
      else if (!(await this.store.insertKey(minion, pub, fingerprint, 'accepted'))) {
        const live = (await this.store.keysOf(minion)).find((r) => r.state !== 'denied');
        throw masterErrors.make('BRINE_ERR_MASTER_KEY_CONFLICT', { minion, accepted: live?.fingerprint ?? '?', offered: fingerprint });
      }
    } finally {
      this.keysChanged();
    }
    this.events.fire('brine/key', { id: minion, act: 'accepted', from: mine?.state ?? 'preseed', fingerprint });
    return { fingerprint, changed: true };
  }

  list(): Promise<KeyRow[]> {
    return this.store.listKeys();
  }

  /**
   * Ids with an accepted key, read once and then kept by every change made here: a publish and a
   * minion page no longer read every key row. A shared store's other masters change keys behind
   * this one's back, so a cluster reads the store each time.
   */
  private accepted: Promise<Set<string>> | undefined;

  async acceptedIds(): Promise<string[]> {
    if (this.store.clustered) return (await this.store.listKeys()).filter((k) => k.state === 'accepted').map((k) => k.minion);
    this.accepted ??= this.store.listKeys().then((rows) => new Set(rows.filter((k) => k.state === 'accepted').map((k) => k.minion)));
    return [...(await this.accepted)];
  }

  /** After a write: the next read of the accepted ids goes to the store (a read under way may predate the write). */
  private keysChanged(): void {
    this.accepted = undefined;
  }

  /**
   * Moves keys matching `match` (a glob; all when undefined) from any of `from` to `to`
   * (`deleted` removes them). Returns what changed.
   */
  async change(match: string | undefined, from: KeyState[], to: KeyState | 'deleted'): Promise<KeyChange[]> {
    const changed: KeyChange[] = [];
    const rows = await this.store.listKeys();
    const ops: KeyOp[] = [];
    {
      for (const r of rows) {
        if (!from.includes(r.state)) continue;
        if (match !== undefined && !globMatch(r.minion, match)) continue;
        if (to === 'accepted' && rows.some((o) => o.minion === r.minion && o.state === 'accepted' && o !== r)) continue;
        // a denied key comes back only while its id has no other live key (one per id)
        if (r.state === 'denied' && to !== 'deleted' && rows.some((o) => o.minion === r.minion && o.state !== 'denied' && o !== r)) continue;
        const was = r.state;
        ops.push({ minion: r.minion, fingerprint: r.fingerprint, to });
        r.state = to === 'deleted' ? r.state : to;
        changed.push({ minion: r.minion, fingerprint: r.fingerprint, from: was, to });
      }
    }
    try {
      await this.store.changeKeys(ops);
    } finally {
      if (ops.length > 0) this.keysChanged();
    }
    for (const c of changed) this.events.fire('brine/key', { id: c.minion, act: c.to, from: c.from, fingerprint: c.fingerprint });
    return changed;
  }
}
