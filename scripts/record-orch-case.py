#!/usr/bin/env python3
"""Records Salt's orchestrate runner answer for the golden cases of packages/orchestrate.

usage (not run in CI; needs the Salt oracle that shared/tools/salt-oracle builds):
  SALT_ORACLE=/path/to/salt-oracle scripts/record-orch-case.py CASE_DIR... [--keep]

For each case folder (format: packages/orchestrate/test/fixtures/salt/FORMAT.md) it starts, from
the oracle's venv and as the current user, a real salt-master on 127.0.0.1 (free ports) and one
salt-minion per id in case.json, everything under a fresh temp dir; waits until every minion
answers test.ping; stops the `down_minions`; runs `salt-run --out json state.orchestrate`; stops
the daemons it started (by pid) and writes CASE/expected.json (normalized, see FORMAT.md).
--keep leaves the temp dir (its path is printed) for reading the daemons' logs.
"""
import json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

ORACLE = os.environ.get('SALT_ORACLE', '')
PY = os.path.join(ORACLE, 'venv', 'bin', 'python')
SCRIPTS = os.path.join(ORACLE, 'src', 'scripts')
READY_TIMEOUT = 60  # seconds for the master + minions to come up and answer test.ping
RUN_TIMEOUT = 300
# Salt 3007's salt/transport/zeromq.py uses tornado.queues without importing it; Salt's pinned
# tornado happens to import it elsewhere, Debian 12's tornado 6.2 (which the oracle uses) does
# not, and the minion cannot authenticate. Each daemon/CLI is started through this shim instead
# of patching the oracle.
SHIM = ('import runpy, sys, tornado.queues; sys.argv = sys.argv[1:]; '
        'runpy.run_path(sys.argv[0], run_name="__main__")')
JID = re.compile(r'\b\d{20}\b')
VOLATILE = {'duration': 0, 'start_time': '00:00:00', '__jid__': '<jid>', 'jid': '<jid>', 'pid': 0}


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def write_config(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(json.dumps(lines, indent=2) + '\n')  # JSON is YAML


def common(root):
    return {
        'root_dir': root, 'pki_dir': f'{root}/pki', 'cachedir': f'{root}/cache',
        'sock_dir': f'{root}/sock', 'log_file': f'{root}/log', 'pidfile': f'{root}/pid',
        'user': os.environ.get('USER') or subprocess.check_output(['id', '-un'], text=True).strip(),
        'log_level_logfile': 'debug',
    }


def configure(tmp, case, spec):
    pub, ret = free_port(), free_port()
    tree = os.path.join(tmp, 'tree')
    shutil.copytree(os.path.join(case, 'tree'), tree)
    pillar = os.path.join(tmp, 'pillar')
    if os.path.isdir(os.path.join(case, 'pillar')):
        shutil.copytree(os.path.join(case, 'pillar'), pillar)
    else:
        os.makedirs(pillar)
    master = common(f'{tmp}/master') | {
        'interface': '127.0.0.1', 'publish_port': pub, 'ret_port': ret, 'auto_accept': True,
        'file_roots': {'base': [tree]}, 'pillar_roots': {'base': [pillar]},
        'timeout': spec.get('timeout', 5), 'gather_job_timeout': 5,
    }
    write_config(f'{tmp}/conf-master/master', master)
    for mid in spec['minions']:
        minion = common(f'{tmp}/minion-{mid}') | {
            'id': mid, 'master': '127.0.0.1', 'master_port': ret, 'publish_port': pub,
            'acceptance_wait_time': 1, 'random_reauth_delay': 0,
        }
        write_config(f'{tmp}/conf-{mid}/minion', minion)


def salt(tmp, script, *args, timeout=RUN_TIMEOUT):
    return subprocess.run([PY, '-c', SHIM, os.path.join(SCRIPTS, script), '-c', f'{tmp}/conf-master',
                           '-l', 'quiet', *args], capture_output=True, text=True, timeout=timeout,
                          cwd=tmp)


def wait_ready(tmp, minions):
    deadline = time.time() + READY_TIMEOUT
    while time.time() < deadline:
        p = salt(tmp, 'salt', '-L', ','.join(minions), 'test.ping', '--out', 'json',
                 '--static', '-t', '3', timeout=30)
        try:
            got = json.loads(p.stdout or '{}')
        except ValueError:
            got = {}
        if all(got.get(m) is True for m in minions):
            return
        time.sleep(0.5)  # polling a daemon we do not control; no event to wait on from outside
    raise SystemExit(f'minions {minions} did not answer test.ping within {READY_TIMEOUT}s')


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def normalize(value, tmp, master_id):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == master_id:
                k = '<master_id>_master'
            out[k] = VOLATILE[k] if k in VOLATILE and v is not None else normalize(v, tmp, master_id)
        return out
    if isinstance(value, list):
        return [normalize(v, tmp, master_id) for v in value]
    if isinstance(value, str):
        return JID.sub('<jid>', value.replace(tmp, '<tmp>'))
    return value


def record(case):
    case = os.path.abspath(case)
    with open(os.path.join(case, 'case.json')) as f:
        spec = json.load(f)
    tmp = tempfile.mkdtemp(prefix='orchgold.', dir='/tmp')  # short: unix socket paths are < 108
    procs = {}
    t0 = time.time()
    try:
        configure(tmp, case, spec)
        procs['master'] = subprocess.Popen(
            [PY, '-c', SHIM, os.path.join(SCRIPTS, 'salt-master'), '-c', f'{tmp}/conf-master', '-l', 'quiet'],
            cwd=tmp, start_new_session=True)
        for mid in spec['minions']:
            procs[mid] = subprocess.Popen(
                [PY, '-c', SHIM, os.path.join(SCRIPTS, 'salt-minion'), '-c', f'{tmp}/conf-{mid}', '-l', 'quiet'],
                cwd=tmp, start_new_session=True)
        wait_ready(tmp, spec['minions'])
        for mid in spec.get('down_minions', []):
            stop(procs.pop(mid))
        args = ['--out', 'json', 'state.orchestrate', spec['orchestrate']]
        if spec.get('test'):
            args.append('test=True')
        if spec.get('pillar') is not None:
            args.append('pillar=' + json.dumps(spec['pillar']))
        t1 = time.time()
        p = salt(tmp, 'salt-run', *args)
        t2 = time.time()
        # salt-run may print lines before the JSON (LocalClient's "No minions matched the
        # target..." when a step targets nothing): kept as `printed`, they are what users see
        start = re.search(r'^\{', p.stdout, re.M)
        try:
            ret = json.JSONDecoder().raw_decode(p.stdout[start.start():])[0]
        except (AttributeError, ValueError):
            raise SystemExit(f'{case}: salt-run printed no JSON (exit {p.returncode}):\n'
                             f'{p.stdout}\n{p.stderr}')
        printed = [l for l in p.stdout[:start.start()].splitlines() if l.strip()]
        # Salt's master id when its config sets none: <fqdn>_master (salt/config/__init__.py)
        data = ret.get('data') if isinstance(ret, dict) else None
        master_id = next((k for k in data or {} if k.endswith('_master')), None)
        got = {'retcode': p.returncode, 'return': normalize(ret, tmp, master_id)}
        if printed:
            got['printed'] = normalize(printed, tmp, master_id)
        with open(os.path.join(case, 'expected.json'), 'w') as f:
            json.dump(got, f, indent=2, sort_keys=True, ensure_ascii=False)
            f.write('\n')
        print(f'recorded {case} (salt-run exit {p.returncode}; setup {t1 - t0:.1f}s, '
              f'orchestrate {t2 - t1:.1f}s)')
    finally:
        for proc in procs.values():
            stop(proc)
        if '--keep' in sys.argv:
            print(f'kept {tmp}')
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    cases = [a for a in sys.argv[1:] if a != '--keep']
    if not cases or not os.path.isfile(PY):
        raise SystemExit(__doc__)
    for case in cases:
        record(case)


if __name__ == '__main__':
    main()
