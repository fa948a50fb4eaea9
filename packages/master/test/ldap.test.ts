import t from 'tap';
import { slapdMissing, startSlapd, type SlapdServer } from '../../../test/support/slapd.js';
import { ldapSignIn, type LdapOptions } from '../src/auth/ldap.js';

/**
 * Salt's LDAP eauth against a real OpenLDAP (Debian's slapd in a temp dir): binding as the user
 * through a `{{ username }}` DN, or finding the user with a search account; groups from
 * posixGroup memberUid; names that try to change the DN or the filter find nobody.
 */
const missing = slapdMissing();
if (missing) {
  t.fail(missing);
} else {
  let ldap: SlapdServer;
  t.before(async () => {
    ldap = await startSlapd([
      { uid: 'bob', password: 'bob-secret', groups: ['web-team', 'ops'] },
      { uid: 'eve', password: 'eve-secret', groups: [] },
    ]);
  });
  t.teardown(() => ldap?.stop());
  const opts = (o: Partial<LdapOptions> = {}): LdapOptions => ({
    server: '127.0.0.1',
    port: ldap.port,
    tls: false,
    basedn: ldap.basedn,
    binddn: `uid={{ username }},ou=People,${ldap.basedn}`,
    bindpw: '',
    filter: 'uid={{ username }}',
    groupou: 'Groups',
    groupclass: 'posixGroup',
    accountattributename: 'memberUid',
    ...o,
  });

  t.test('binding as the user: groups from the directory; wrong or empty passwords refused', async (t) => {
    t.same((await ldapSignIn(opts(), 'bob', 'bob-secret'))?.groups.sort(), ['ops', 'web-team']);
    t.same(await ldapSignIn(opts(), 'eve', 'eve-secret'), { groups: [] });
    t.equal(await ldapSignIn(opts(), 'bob', 'wrong'), undefined);
    t.equal(await ldapSignIn(opts(), 'bob', ''), undefined, 'an empty password is never an anonymous bind');
    t.equal(await ldapSignIn(opts(), 'nobody', 'x'), undefined);
    t.equal(await ldapSignIn(opts(), 'bob,ou=People', 'bob-secret'), undefined, 'a name cannot add DN components');
  });

  t.test('a search account finds the user by filter, then binds as them', async (t) => {
    const search = opts({ binddn: `cn=admin,${ldap.basedn}`, bindpw: 'admin-secret' });
    t.same((await ldapSignIn(search, 'bob', 'bob-secret'))?.groups.sort(), ['ops', 'web-team']);
    t.equal(await ldapSignIn(search, 'bob', 'eve-secret'), undefined);
    t.equal(await ldapSignIn(search, '*', 'bob-secret'), undefined, 'a name cannot widen the filter');
  });

  t.test('a directory that cannot be reached is a coded error, not a refusal', async (t) => {
    await t.rejects(ldapSignIn(opts({ port: 1 }), 'bob', 'bob-secret'), { code: 'BRINE_ERR_MASTER_LDAP', message: /ldap:\/\/127\.0\.0\.1:1/ });
  });
}
