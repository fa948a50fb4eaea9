import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadMasterConfig, MASTER_DEFAULTS, parseNetworks } from '@brine/master';
import { loadMinionConfig } from '@brine/minion';
import t from 'tap';
import { parse } from 'yaml';
import { REPO } from './helpers/proc.js';

/**
 * docker-compose.yml cannot run here (no Docker engine): this checks that everything it names
 * exists in the repo — the Dockerfile and what it copies, each command's verb and config file,
 * every bind-mounted folder and every path and port inside those configs.
 */
const compose = parse(readFileSync(path.join(REPO, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      build?: string;
      image?: string;
      profiles?: string[];
      command: string[];
      volumes?: string[];
      expose?: string[];
      networks?: string[];
      depends_on?: string[] | Record<string, unknown>;
      environment?: Record<string, string>;
    }
  >;
  networks: Record<string, { ipam: { config: Array<{ subnet: string }> } }>;
  volumes: Record<string, unknown>;
};
const dockerfile = readFileSync(path.join(REPO, 'Dockerfile'), 'utf8');

/** The repo path behind a path inside the image (the Dockerfile copies the repo to /brine). */
function inRepo(containerPath: string): string {
  t.ok(containerPath.startsWith('/brine/'), `${containerPath} is inside the image's /brine`);
  return path.join(REPO, containerPath.slice('/brine/'.length));
}

t.test('the Dockerfile copies what exists and runs the built CLI', async (t) => {
  for (const m of dockerfile.matchAll(/^COPY (.+) \S+$/gm)) {
    for (const src of m[1]!.split(/\s+/)) t.ok(existsSync(path.join(REPO, src)), `COPY ${src}`);
  }
  t.match(dockerfile, /^WORKDIR \/brine$/m);
  // the launcher, as a user's `brine` (it sizes V8's helper threads for `brine master`)
  const entry = /^ENTRYPOINT \["([^"]+)"\]$/m.exec(dockerfile)![1]!;
  t.equal(entry, '/brine/packages/cli/bin/brine');
  t.ok(statSync(inRepo(entry)).mode & 0o111, `${entry} is executable`);
  t.match(dockerfile, /^EXPOSE 4506$/m);
});

t.test('every service: built from the Dockerfile, a real verb, a config that loads', async (t) => {
  const { allCommands } = (await import(path.join(REPO, 'packages/cli/dist/commands/index.js'))) as {
    allCommands: () => Promise<Array<{ name: string }>>;
  };
  const verbs = new Set((await allCommands()).map((c) => c.name));
  const subnet = compose.networks.brine!.ipam.config[0]!.subnet;
  const masterSvc = compose.services.master!;
  const masterCfgPath = masterSvc.command[masterSvc.command.indexOf('--config') + 1]!;
  const master = loadMasterConfig(inRepo(masterCfgPath));
  t.same(masterSvc.expose, [String(master.port)], 'the exposed port is the minion channel');
  t.ok(master.autosign_networks.includes(subnet), 'keys are auto-accepted for the compose network only');
  t.same(master.autosign, MASTER_DEFAULTS.autosign);
  t.equal(master.auto_accept, false);
  // the state tree and pillar the master serves are bind mounts of folders in the repo
  const mounts = new Map((masterSvc.volumes ?? []).filter((v) => v.startsWith('./')).map((v) => [v.split(':')[1]!, v.split(':')[0]!]));
  for (const dir of [...Object.values(master.file_roots).flat(), ...Object.values(master.pillar_roots).flat()]) {
    const src = mounts.get(dir);
    t.ok(src, `${dir} is mounted`);
    t.ok(statSync(path.join(REPO, src!)).isDirectory(), `${src} exists`);
  }
  t.ok(existsSync(path.join(REPO, mounts.get(master.file_roots.base![0]!)!, 'top.sls')), 'the mounted tree has a top file');

  for (const [name, svc] of Object.entries(compose.services)) {
    if (svc.image) continue; // PostgreSQL of the cluster profile (checked below)
    t.equal(svc.build, '.', `${name} is built from the Dockerfile`);
    t.ok(verbs.has(svc.command[0]!), `${name}: '${svc.command[0]}' is a brine verb`);
    t.same(svc.networks, ['brine'], `${name} is on the compose network`);
    for (const v of svc.volumes ?? []) {
      const [src] = v.split(':');
      if (src!.startsWith('./')) t.ok(existsSync(path.join(REPO, src!)), `${name}: ${src} exists`);
      else t.ok(src! in compose.volumes, `${name}: volume ${src} is declared`);
    }
    if (svc.command[0] !== 'minion') continue;
    const cfgPath = svc.command[svc.command.indexOf('--config') + 1]!;
    const minion = loadMinionConfig(inRepo(cfgPath));
    t.equal(minion.id, name, `${name}: the config's id is the service name`);
    const masters = Array.isArray(minion.master) ? minion.master : [minion.master];
    for (const m of masters) t.ok(m in compose.services, `${name}: its master '${m}' is a service`);
    t.equal(minion.master_port, master.port, `${name}: connects to the master's port`);
    t.same(svc.depends_on, masters);
    t.ok(path.isAbsolute(minion.data_dir), `${name}: data_dir is absolute`);
    t.not(minion.data_dir, master.data_dir, `${name}: data_dir is its own, not the master's`);
    t.ok(
      (svc.volumes ?? []).some((v) => v.endsWith(`:${minion.data_dir}`)),
      `${name}: its data_dir is a volume`,
    );
  }
  t.ok(
    (masterSvc.volumes ?? []).some((v) => v.endsWith(`:${master.data_dir}`)),
    'the master data_dir is a volume',
  );
});

t.test("autosign_networks: the master's own matcher takes the compose network and nothing else", async (t) => {
  const masterSvc = compose.services.master!;
  const master = loadMasterConfig(inRepo(masterSvc.command[masterSvc.command.indexOf('--config') + 1]!));
  const subnet = compose.networks.brine!.ipam.config[0]!.subnet;
  const [base, bits] = subnet.split('/');
  t.equal(Number(bits) <= 30, true, 'room for a master and minions');
  // an address inside the subnet: its base address plus 5
  const octets = base!.split('.').map(Number);
  octets[3]! += 5;
  const inside = octets.join('.');
  const networks = parseNetworks(master.autosign_networks);
  t.ok(networks.check(inside, 'ipv4'), `${inside} (a compose container) is in autosign_networks`);
  t.notOk(networks.check('10.1.2.3', 'ipv4'), 'an address outside the compose network is not');
  t.notOk(networks.check('192.168.1.10', 'ipv4'), 'nor a LAN address');
});

t.test('the cluster profile: PostgreSQL, two masters sharing it and one TLS identity, minions listing both', async (t) => {
  const svc = compose.services;
  const inProfile = Object.entries(svc).filter(([, s]) => s.profiles?.includes('cluster'));
  t.same(inProfile.map(([n]) => n).sort(), ['cdb1', 'cweb1', 'master-a', 'master-b', 'postgres']);
  t.notOk(
    Object.values(svc).some((s) => !s.profiles && s.image),
    'the default services need no image from elsewhere',
  );
  const pg = svc.postgres!;
  t.match(pg.image, /^postgres:/);
  t.match(pg.environment?.POSTGRES_PASSWORD, /^\$\{BRINE_PG_PASSWORD:\?/, 'the password comes from the environment, not the repo');
  const masters = ['master-a', 'master-b'].map((n) => {
    const s = svc[n]!;
    const cfg = loadMasterConfig(inRepo(s.command[s.command.indexOf('--config') + 1]!));
    t.equal(s.environment?.BRINE_STORE_PASSWORD, pg.environment?.POSTGRES_PASSWORD, `${n}: the store password is the database's`);
    t.ok(cfg.store?.startsWith('postgres://brine@postgres:'), `${n}: its store is the postgres service`);
    t.notMatch(cfg.store, /:[^@/]*@/, `${n}: no password in the store URL`);
    t.ok(
      (s.volumes ?? []).some((v) => v.endsWith(`:${cfg.pki_dir}`) && v.startsWith('cluster-pki:')),
      `${n}: its pki_dir is the shared volume`,
    );
    return cfg;
  });
  t.equal(masters[0]!.store, masters[1]!.store, 'one store');
  t.equal(masters[0]!.pki_dir, masters[1]!.pki_dir, 'one TLS identity');
  t.not(masters[0]!.cluster_id, masters[1]!.cluster_id);
  t.same(masters[0]!.file_roots, masters[1]!.file_roots, 'the same tree');
  for (const m of ['cweb1', 'cdb1']) {
    const s = svc[m]!;
    const cfg = loadMinionConfig(inRepo(s.command[s.command.indexOf('--config') + 1]!));
    t.same(cfg.master, ['master-a', 'master-b'], `${m} lists both masters`);
  }
});
