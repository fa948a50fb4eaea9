import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command } from '../command.js';
import { parse, readPassword, usageError } from './accounts-io.js';

const USAGE = 'brine token create [--ttl 8h] [--user NAME [--eauth local|ldap] [--password-stdin]] | list | revoke ID  [--json] [--config MASTER_CONFIG]';

interface TokenRow {
  id: string;
  username: string;
  eauth: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  token?: string;
}

const status = (t: TokenRow) => (t.revoked_at ? 'revoked' : Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'valid');

/**
 * `brine token`: API tokens for a user, expiring (`--ttl`, at most the master's token_expire) and
 * revocable at once. `create --user NAME` signs in with that user's password (local or LDAP);
 * without it, the token is for whoever the current token is. Use it as BRINE_API_TOKEN.
 */
export const tokenCommand: Command = {
  name: 'token',
  summary: 'create, list or revoke API tokens of operators',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      {
        config: { type: 'string', short: 'c' },
        json: { type: 'boolean' },
        ttl: { type: 'string' },
        user: { type: 'string', short: 'u' },
        eauth: { type: 'string' },
        'password-stdin': { type: 'boolean' },
      },
      USAGE,
    );
    const [sub, id, ...rest] = positionals;
    if (!sub || !['create', 'list', 'revoke'].includes(sub)) throw usageError(sub ? `unknown action '${sub}'` : 'no action given', USAGE);
    if (rest.length > 0 || (sub === 'revoke' ? !id : id))
      throw usageError(sub === 'revoke' ? 'brine token revoke takes one ID' : `brine token ${sub} takes no ID`, USAGE);
    if (values.eauth !== undefined && values.eauth !== 'local' && values.eauth !== 'ldap')
      throw usageError(`--eauth is local or ldap, not '${values.eauth}'`, USAGE);
    // signing in with a password needs no token of its own
    const signIn = sub === 'create' && values.user !== undefined;
    const env = signIn ? { ...io.env, BRINE_API_TOKEN: io.env.BRINE_API_TOKEN || 'none' } : io.env;
    const client = new MasterClient(resolveApi(values.config, env));
    if (sub === 'create') {
      const ttl = values.ttl;
      const t = signIn
        ? await client.post<TokenRow>('/v1/login', {
            username: values.user,
            password: await readPassword(values['password-stdin'] === true, `password for ${values.user}: `),
            ...(values.eauth ? { eauth: values.eauth } : {}),
            ...(ttl ? { ttl } : {}),
          })
        : await client.post<TokenRow>('/v1/tokens', ttl ? { ttl } : {});
      if (values.json) io.stdout(JSON.stringify(t, null, 2) + '\n');
      else {
        io.stdout(`${t.token}\n`);
        io.stderr(`token ${t.id} for ${t.username} (${t.eauth}), expires ${t.expires_at}\n`);
      }
      return 0;
    }
    if (sub === 'revoke') {
      const r = await client.post<{ revoked: boolean }>(`/v1/tokens/${encodeURIComponent(id!)}/revoke`);
      io.stdout(r.revoked ? `revoked ${id}\n` : `${id} was already revoked\n`);
      return 0;
    }
    const { tokens } = await client.get<{ tokens: TokenRow[] }>('/v1/tokens');
    if (values.json) io.stdout(JSON.stringify(tokens, null, 2) + '\n');
    else
      io.stdout(
        tokens.map((t) => `${t.id}  ${t.username.padEnd(16)} ${t.eauth.padEnd(6)} ${status(t).padEnd(8)} expires ${t.expires_at}\n`).join('') || 'no tokens\n',
      );
    return 0;
  },
};
