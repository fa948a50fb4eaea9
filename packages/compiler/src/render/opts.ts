/**
 * `opts` in templates: the keys of a minion's options formulas read, as Salt gives them. With
 * nothing said it is `salt-call --local`'s view (what the golden cases record); the master gives
 * its view of a minion (file_client remote, __cli by how the job was started). Only the
 * minion's side: never a path or secret of the master.
 */
export interface OptsView {
  /** 'salt-minion' for a daemon's job, 'salt-call' for `brine call` and `brine local`. */
  cli?: 'salt-minion' | 'salt-call';
  fileClient?: 'remote' | 'local';
  saltenv?: string | null;
  pillarenv?: string | null;
  test?: boolean;
  master?: string;
  /** The top file's name (`top.sls`) and the env of the default top. */
  stateTop?: string;
  defaultTop?: string;
  fileRoots?: Record<string, string[]>;
  pillarRoots?: Record<string, string[]>;
}

/** Brine's minion paths where Salt's stand (config beside Brine's, cache under its data dir). */
const PATHS = { cachedir: '/var/lib/brine/minion/cache', config_dir: '/etc/brine', conf_file: '/etc/brine/minion.yaml' };

export function minionOpts(v: OptsView = {}): Record<string, unknown> {
  return {
    saltenv: v.saltenv ?? null,
    pillarenv: v.pillarenv ?? null,
    __cli: v.cli ?? 'salt-call',
    file_client: v.fileClient ?? 'local',
    renderer: 'jinja|yaml',
    master: v.master ?? 'salt',
    ...PATHS,
    hash_type: 'sha256',
    state_top: `salt://${v.stateTop ?? 'top.sls'}`,
    default_top: v.defaultTop ?? 'base',
    test: v.test ?? false,
    // Salt's minion defaults: a minion's own roots, not the master's
    file_roots: v.fileRoots ?? { base: ['/srv/salt', '/srv/spm/salt'] },
    pillar_roots: v.pillarRoots ?? { base: ['/srv/pillar', '/srv/spm/pillar'] },
  };
}
