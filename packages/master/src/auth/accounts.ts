import { createHash, randomBytes } from 'node:crypto';
import { durationSeconds } from '@brine/core';
import type { MasterConfig } from '../config.js';
import { tokenMatches } from '../tls.js';
import type { AccountStore, TokenRow } from './account-store.js';
import { ldapSignIn, type LdapOptions } from './ldap.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { checkExternalAuth, grantsFor, type ExternalAuth, type Identity } from './permissions.js';

const hashToken = (t: string): string => createHash('sha256').update(t).digest('hex');

/** A scrypt hash of nothing in particular: an unknown user costs the same check as a known one. */
let decoy: Promise<string> | undefined;

/** The options auth.ldap.* of the master config. */
export function ldapOptions(cfg: MasterConfig): LdapOptions {
  const get = <K extends keyof LdapOptions>(k: K) => cfg[`auth.ldap.${k}` as keyof MasterConfig] as LdapOptions[K];
  return {
    server: get('server'),
    port: get('port'),
    tls: get('tls'),
    basedn: get('basedn'),
    binddn: get('binddn'),
    bindpw: get('bindpw'),
    filter: get('filter'),
    groupou: get('groupou'),
    groupclass: get('groupclass'),
    accountattributename: get('accountattributename'),
  };
}

/**
 * Who a call comes from: the bootstrap token (the first admin), a user's API token (hashed in the
 * store, expiring, revocable), or a user name and password (local accounts with scrypt, or LDAP).
 * Permissions are read from external_auth at each call, so a config change applies to live tokens.
 */
export class Accounts {
  readonly store: AccountStore;
  private readonly bootstrap: string;
  private readonly ea: ExternalAuth;
  private readonly ldap: LdapOptions | undefined;
  readonly maxTtl: number;
  constructor(o: { store: AccountStore; bootstrapToken: string; externalAuth?: unknown; ldap?: LdapOptions; maxTtlSeconds?: number }) {
    this.store = o.store;
    this.bootstrap = o.bootstrapToken;
    this.ea = checkExternalAuth(o.externalAuth);
    this.ldap = o.ldap;
    this.maxTtl = o.maxTtlSeconds ?? 43200;
  }

  admin(user: string): Identity {
    return { user, eauth: 'bootstrap', groups: [], admin: true, grants: [] };
  }

  /** The identity a bearer token stands for; undefined when it is unknown, expired or revoked. */
  async fromToken(token: string, userHint: string): Promise<Identity | undefined> {
    if (tokenMatches(token, this.bootstrap)) return this.admin(userHint);
    if (!token.startsWith('brn_')) return undefined;
    const row = await this.store.tokenByHash(hashToken(token));
    if (!row || row.revoked_at !== null || Date.parse(row.expires_at) <= Date.now()) return undefined;
    return this.identity(row.username, row.eauth as 'local' | 'ldap', row.groups, row.id);
  }

  /**
   * Whether a console session's identity still stands: a removed local user, or a revoked or
   * expired token it signed in with, ends the session at once rather than after 12 hours.
   */
  async stillValid(who: Identity): Promise<boolean> {
    if (who.tokenId) {
      const row = await this.store.getToken(who.tokenId);
      return !!row && row.revoked_at === null && Date.parse(row.expires_at) > Date.now();
    }
    if (who.eauth === 'local') return (await this.store.getUser(who.user)) !== undefined;
    return true;
  }

  private identity(user: string, eauth: 'local' | 'ldap', groups: string[], tokenId?: string): Identity | undefined {
    const grants = grantsFor(this.ea, eauth, user, groups);
    if (!grants) return undefined;
    return { user, eauth, groups, admin: false, grants, ...(tokenId ? { tokenId } : {}) };
  }

  /** User and password: a local account first, else LDAP when external_auth has an ldap section. */
  async signIn(user: string, password: string, eauth?: string): Promise<Identity | undefined> {
    if (eauth !== 'ldap') {
      const row = await this.store.getUser(user);
      decoy ??= hashPassword(randomBytes(16).toString('hex'));
      const ok = await verifyPassword(password, row?.password ?? (await decoy));
      if (row && ok) return this.identity(user, 'local', []);
      if (row || eauth === 'local') return undefined;
    }
    if (!this.ldap || !this.ea.ldap) return undefined;
    const found = await ldapSignIn(this.ldap, user, password);
    return found ? this.identity(user, 'ldap', found.groups) : undefined;
  }

  /** A new API token for this identity; only its hash is stored. */
  async createToken(who: Identity, ttlSeconds: number): Promise<{ token: string; row: TokenRow }> {
    const ttl = Math.min(Math.max(1, ttlSeconds), this.maxTtl);
    const id = randomBytes(6).toString('hex');
    const token = `brn_${id}_${randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    const row: TokenRow = {
      id,
      username: who.user,
      eauth: who.eauth === 'bootstrap' ? 'local' : who.eauth,
      groups: who.groups,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttl * 1000).toISOString(),
      revoked_at: null,
    };
    await this.store.insertToken({ ...row, hash: hashToken(token) });
    return { token, row };
  }
}

/** `8h`, `30m`, `1d`, `45s` or plain seconds (core's durationSeconds). */
export const parseTtl = durationSeconds;
