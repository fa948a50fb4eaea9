import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';

export interface LdapUser {
  uid: string;
  password: string;
  groups: string[];
}

export interface SlapdServer {
  port: number;
  basedn: string;
  stop(): Promise<void>;
}

/** Why slapd cannot run here, or undefined when it can (Debian's slapd and ldap-utils, scripts/test-deps.sh). */
export function slapdMissing(): string | undefined {
  if (!existsSync(SLAPD) || !existsSync(SLAPADD))
    return `OpenLDAP's slapd is not installed (${SLAPD}): run scripts/test-deps.sh as root, or apt-get install slapd ldap-utils`;
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function ldif(basedn: string, users: LdapUser[]): string {
  const groups = [...new Set(users.flatMap((u) => u.groups))];
  const entries = [
    `dn: ${basedn}\nobjectClass: dcObject\nobjectClass: organization\ndc: brine\no: Brine test`,
    `dn: ou=People,${basedn}\nobjectClass: organizationalUnit\nou: People`,
    `dn: ou=Groups,${basedn}\nobjectClass: organizationalUnit\nou: Groups`,
    ...users.map(
      (u, i) =>
        `dn: uid=${u.uid},ou=People,${basedn}\nobjectClass: inetOrgPerson\nobjectClass: posixAccount\nuid: ${u.uid}\ncn: ${u.uid}\nsn: ${u.uid}\n` +
        `uidNumber: ${2000 + i}\ngidNumber: 2000\nhomeDirectory: /home/${u.uid}\nuserPassword: ${u.password}`,
    ),
    ...groups.map(
      (g, i) =>
        `dn: cn=${g},ou=Groups,${basedn}\nobjectClass: posixGroup\ncn: ${g}\ngidNumber: ${3000 + i}\n` +
        users
          .filter((u) => u.groups.includes(g))
          .map((u) => `memberUid: ${u.uid}`)
          .join('\n'),
    ),
  ];
  return entries.join('\n\n') + '\n';
}

/**
 * A real OpenLDAP server in a temp dir on a free loopback port: a slapd.conf with the Debian
 * schemas and one mdb database, loaded offline with slapadd, slapd in the foreground (-d 0) so
 * the test owns the process. Users sit under ou=People, posixGroups (memberUid) under ou=Groups,
 * as Salt's LDAP eauth defaults expect.
 */
export async function startSlapd(users: LdapUser[]): Promise<SlapdServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-slapd-'));
  const basedn = 'dc=brine,dc=test';
  mkdirSync(path.join(dir, 'db'));
  const conf = path.join(dir, 'slapd.conf');
  writeFileSync(
    conf,
    ['core', 'cosine', 'nis', 'inetorgperson'].map((s) => `include /etc/ldap/schema/${s}.schema`).join('\n') +
      `\npidfile ${dir}/slapd.pid\nmodulepath /usr/lib/ldap\nmoduleload back_mdb\n` +
      `database mdb\nsuffix "${basedn}"\nrootdn "cn=admin,${basedn}"\nrootpw admin-secret\ndirectory ${dir}/db\nmaxsize 10485760\n` +
      // users bind as themselves and read the groups; passwords are never readable
      `access to attrs=userPassword by anonymous auth by * none\naccess to * by users read by * none\n`,
  );
  writeFileSync(path.join(dir, 'data.ldif'), ldif(basedn, users));
  const add = spawnSync(SLAPADD, ['-f', conf, '-l', path.join(dir, 'data.ldif')], { encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`slapadd failed: ${add.stderr}`);
  const port = await freePort();
  const child: ChildProcess = spawn(SLAPD, ['-f', conf, '-h', `ldap://127.0.0.1:${port}/`, '-d', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`slapd did not start on port ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    basedn,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
