#!/usr/bin/env python3
"""Real apply of formula cases, Salt vs Brine, each in a throwaway copy of this host.

usage (root, Linux with overlayfs; needs the Salt oracle, so it is not part of CI):
  SALT_ORACLE=/path/to/salt-oracle scripts/real-apply-compare.py CORPUS OUT FORMULA... [--keep]

CORPUS/<formula>/tree (and tree/pillar) is a case made by formula-case. For each formula and tool
(Salt's salt-call --local, then `brine local` from this checkout, built) it makes an overlay whose
lower dir is the host root `/` and whose upper/work dirs are in a temp dir under /var/tmp, binds
/proc (a new one), /dev and /sys inside, and in a new mount + PID namespace chroots into it and
runs `state.apply` for real twice. Nothing is written to the host itself. When the namespace's
first process exits the kernel kills every process left in it and drops its mounts; the script
then checks that no mount or process refers to the temp dir and removes it (--keep leaves it).

It compares the two end states: files (every path either upper dir holds: type, mode, owner,
sha256, link target; the ignored paths are IGNORE below), dpkg packages, users and groups
(passwd/group lines; shadow/gshadow by which fields are set, as hashes are salted), services
(rc?.d and systemd *.wants links, processes left running) and the second run's changes.
OUT gets per formula: salt-1.json, salt-2.json, brine-1.json, brine-2.json, compare.json,
and summary.txt for all formulas. Exit status 0 when every formula agrees.
"""
import difflib, grp, hashlib, json, re, os, pwd, shutil, stat, subprocess, sys, tempfile, time

NODE = shutil.which('node') or '/usr/bin/node'
HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)
# Paths whose content is noise between runs (caches, logs, apt lists, the tools' own temp and
# cache dirs, dpkg's own database, which is compared as packages) or compared by fields below.
IGNORE = ('/tmp', '/var/tmp', '/var/cache', '/var/log', '/var/lib/apt/lists', '/root/.cache',
          '/root/.npm', '/run', '/var/lib/dpkg', '/var/backups', '/etc/ld.so.cache',
          '/etc/passwd-', '/etc/group-', '/etc/shadow-', '/etc/gshadow-', '/etc/shadow',
          '/etc/gshadow', '/etc/subuid-', '/etc/subgid-', '/var/lib/systemd/deb-systemd-helper-masked',
          '/usr/lib/python3/dist-packages/__pycache__', '/etc/.pwd.lock', '/proc', '/sys', '/dev',
          '/var/lib/ucf/cache', '/var/lib/ucf/hashfile.', '/var/lib/ucf/registry.')
IGNORE_PARTS = ('__pycache__',)
# Files whose bytes differ on every run (a daemon's pid, Berkeley DB pages): type, mode and owner
# are compared, not content.
CONTENT_NOISE = ('.pid', '.lock', '/etc/aliases.db', '.tdb')
# crontab(1) heads a crontab with the file it was read from and the time: compared without it
CRONTAB_STAMP = re.compile(rb'^# \(.* installed on .*\)\n', re.M)


def ignored(p):
    if any(part in IGNORE_PARTS for part in p.split('/')):
        return True
    return any(p == i or p.startswith(i if i.endswith('.') else i + '/') for i in IGNORE)


# ---------------------------------------------------------------- inside the namespace
def inner(base, tool, case, corpus_tool_cmd):
    """PID 1 of the new namespaces: mount the overlay, apply twice, list processes, exit."""
    m = os.path.join(base, 'merged')
    run = lambda *a: subprocess.run(a, check=True)
    run('mount', '--make-rprivate', '/')
    run('mount', '-t', 'overlay', 'overlay', '-o',
        f'lowerdir=/,upperdir={base}/upper,workdir={base}/work', m)
    run('mount', '-t', 'proc', 'proc', f'{m}/proc')
    for d in ('dev', 'sys'):
        run('mount', '--rbind', f'/{d}', f'{m}/{d}')
    out = {'runs': []}
    for i in (1, 2):
        t0 = time.monotonic()
        p = subprocess.run(['chroot', m] + corpus_tool_cmd, capture_output=True, text=True,
                           cwd='/', timeout=1800)
        out['runs'].append({'seconds': round(time.monotonic() - t0, 2), 'rc': p.returncode,
                            'stdout': p.stdout, 'stderr': p.stderr[-4000:]})
    procs = []  # the namespace's own /proc: what the applies left running (we are its PID 1)
    for pid in os.listdir(f'{m}/proc'):
        if pid.isdigit() and pid != '1':
            try:
                procs.append(open(f'{m}/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode().strip())
            except OSError:
                pass
    out['processes'] = sorted(x for x in procs if x)
    json.dump(out, open(os.path.join(base, 'inner.json'), 'w'))


# ---------------------------------------------------------------- end state from upper + host
def is_whiteout(st):
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == 0


def opaque(path):
    try:
        return os.getxattr(path, 'trusted.overlay.opaque') == b'y'
    except OSError:
        return False


def view(upper, p):
    """The path as the overlay showed it: upper wins, a whiteout or an opaque parent hides /."""
    u = upper + p
    if os.path.lexists(u):
        return None if is_whiteout(os.lstat(u)) else u
    parts = p.strip('/').split('/')
    for k in range(len(parts) - 1, 0, -1):
        d = upper + '/' + '/'.join(parts[:k])
        if os.path.isdir(d) and not os.path.islink(d) and opaque(d):
            return None
    return p if os.path.lexists(p) else None


def describe(path, names):
    if path is None:
        return 'absent'
    st = os.lstat(path)
    owner = f"{names[0].get(st.st_uid, st.st_uid)}:{names[1].get(st.st_gid, st.st_gid)}"
    mode = oct(stat.S_IMODE(st.st_mode))
    if stat.S_ISLNK(st.st_mode):
        return f'link -> {os.readlink(path)} {owner}'
    if stat.S_ISDIR(st.st_mode):
        return f'dir {mode} {owner}'
    if stat.S_ISREG(st.st_mode) and path.endswith(CONTENT_NOISE):
        return f'file {mode} {owner} (content not compared)'
    if stat.S_ISREG(st.st_mode):
        data = open(path, 'rb').read()
        if '/var/spool/cron/crontabs/' in path:
            data = CRONTAB_STAMP.sub(b'', data)
        h = hashlib.sha256(data).hexdigest()[:16]
        return f'file {mode} {owner} sha256:{h}'
    return f'special {oct(st.st_mode)} {owner}'


def upper_paths(upper):
    found = set()
    for root, dirs, files in os.walk(upper):
        for n in dirs + files:
            p = os.path.join(root, n)[len(upper):]
            if not ignored(p):
                found.add(p)
    return found


def read_view(upper, p):
    v = view(upper, p)
    return open(v, encoding='utf-8', errors='replace').read() if v else ''


def id_names(upper):
    u = {int(l.split(':')[2]): l.split(':')[0] for l in read_view(upper, '/etc/passwd').splitlines() if l.count(':') >= 6}
    g = {int(l.split(':')[2]): l.split(':')[0] for l in read_view(upper, '/etc/group').splitlines() if l.count(':') >= 3}
    return u, g


def packages(upper):
    pk, cur = {}, {}
    for line in read_view(upper, '/var/lib/dpkg/status').splitlines() + ['']:
        if not line:
            if cur.get('Package') and 'installed' in cur.get('Status', '').split()[-1:]:
                pk[cur['Package'] + ':' + cur.get('Architecture', '')] = cur.get('Version', '')
            cur = {}
        elif not line[0].isspace() and ':' in line:
            k, v = line.split(':', 1)
            cur[k] = v.strip()
    return pk


def accounts(upper):
    acc = {}
    for f in ('/etc/passwd', '/etc/group'):
        for l in read_view(upper, f).splitlines():
            acc[f + ' ' + l.split(':')[0]] = l
    for f in ('/etc/shadow', '/etc/gshadow'):
        for l in read_view(upper, f).splitlines():
            fs = l.split(':')
            # the password field: its kind (locked, empty, a hash and its scheme), not the hash
            pw = fs[1] if len(fs) > 1 else ''
            kind = pw if pw in ('', '!', '*', '!*') else ('!' if pw.startswith('!') else '') + 'hash' + (pw.split('$')[1] if pw.count('$') > 1 else '')
            acc[f + ' ' + fs[0]] = ':'.join([fs[0], kind] + ['set' if x else '' for x in fs[2:]])
    return acc


def services(paths):
    return sorted(p for p in paths if p.startswith('/etc/rc') or '.wants/' in p or p.endswith('.service'))


def state_changes(text):
    try:
        d = json.loads(text)
    except ValueError:
        return None
    d = d.get('local', d) if isinstance(d, dict) else d
    return d if isinstance(d, dict) else None


def no_pid(tag, changes):
    """A cmd state's changes without the pid (a process id differs on every run)."""
    if tag.startswith('cmd_|-') and isinstance(changes, dict):
        return {k: v for k, v in changes.items() if k != 'pid'}
    return changes


def compare_runs(s, b):
    """Per state of Salt's first run: same result, and result+comment+changes identical."""
    same_res = ident = 0
    diffs = []
    for k, v in s.items():
        w = b.get(k) if b else None
        if not isinstance(w, dict):
            diffs.append((k, 'missing in Brine'))
            continue
        if v.get('result') == w.get('result'):
            same_res += 1
            if v.get('comment') == w.get('comment') and no_pid(k, v.get('changes')) == no_pid(k, w.get('changes')):
                ident += 1
                continue
        diffs.append((k, {'salt': [v.get('result'), str(v.get('comment'))[:300], v.get('changes')],
                          'brine': [w.get('result'), str(w.get('comment'))[:300], w.get('changes')]}))
    return same_res, ident, diffs


def second_run(d):
    if d is None:
        return None, ['no JSON output']
    changed = [k for k, v in d.items() if isinstance(v, dict) and v.get('changes')]
    failed = [k for k, v in d.items() if isinstance(v, dict) and v.get('result') is False]
    return changed, failed


def dict_diff(a, b):
    return {k: [a.get(k), b.get(k)] for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


# ---------------------------------------------------------------- one overlay per tool
def tool_cmd(tool, case):
    tree = os.path.join(case, 'tree')
    pil = os.path.join(tree, 'pillar')
    if tool == 'salt':
        return ['/usr/bin/env', 'TMPDIR=/tmp', os.path.join(os.environ['SALT_ORACLE'], 'salt-call-local'),
                tree, pil if os.path.isdir(pil) else '-', 'state.apply']
    cmd = [NODE, os.path.join(PROJECT, 'packages/cli/dist/bin.js'), 'local', 'state.apply',
           '--file-root', tree, '--id', 'anchor', '--out', 'json']
    return cmd + (['--pillar-root', pil] if os.path.isdir(pil) else [])


def leftovers(base):
    mounts = [l for l in open('/proc/self/mounts') if base in l]
    procs = []
    for pid in os.listdir('/proc'):
        try:
            if pid.isdigit() and os.readlink(f'/proc/{pid}/root').startswith(base):
                procs.append(pid)
        except OSError:
            pass
    return mounts, procs


def apply_in_overlay(tool, case):
    base = tempfile.mkdtemp(prefix=f'realapply-{tool}-', dir='/var/tmp')
    for d in ('upper', 'work', 'merged'):
        os.mkdir(os.path.join(base, d))
    cmd = ['unshare', '--mount', '--pid', '--fork', sys.executable, os.path.abspath(__file__), '--inner',
           base, tool, case, json.dumps(tool_cmd(tool, case))]
    host_pkgs = packages('')  # the host itself (an empty upper): other work may install packages meanwhile
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f'{tool} overlay failed: {p.stderr[-2000:]}')
    res = json.load(open(os.path.join(base, 'inner.json')))
    mounts, procs = leftovers(base)
    res['leftover_mounts'], res['leftover_processes'] = mounts, procs
    res['host_packages'] = host_pkgs
    return base, res


def end_state(base, paths, host_pkgs):
    """Files as the overlay showed them, the packages the runs changed (vs the host before), accounts."""
    upper = os.path.join(base, 'upper')
    names = id_names(upper)
    files = {p: describe(view(upper, p), names) for p in sorted(paths)}
    return {'files': files, 'packages': dict_diff(host_pkgs, packages(upper)), 'accounts': accounts(upper)}


def file_diffs(bases, differ):
    """Unified diffs (Salt -> Brine) of the regular files whose content differs."""
    out = {}
    for p, (a, b) in differ.items():
        if a.startswith('file ') and b.startswith('file ') and a.split()[-1] != b.split()[-1]:
            texts = [read_view(bases[t] + '/upper', p).splitlines(keepends=True) for t in ('salt', 'brine')]
            out[p] = ''.join(difflib.unified_diff(*texts, 'salt' + p, 'brine' + p))[:20000]
    return out


def one_formula(corpus, name, out, keep):
    case = os.path.join(corpus, name)
    os.makedirs(os.path.join(out, name), exist_ok=True)
    bases, res = {}, {}
    try:
        for tool in ('salt', 'brine'):
            bases[tool], res[tool] = apply_in_overlay(tool, case)
            for i, r in enumerate(res[tool]['runs'], 1):
                open(os.path.join(out, name, f'{tool}-{i}.json'), 'w').write(r['stdout'])
                open(os.path.join(out, name, f'{tool}-{i}.stderr'), 'w').write(r['stderr'])
        paths = upper_paths(bases['salt'] + '/upper') | upper_paths(bases['brine'] + '/upper')
        ends = {t: end_state(bases[t], paths, res[t]['host_packages']) for t in bases}
        text_diffs = file_diffs(bases, dict_diff(ends['salt']['files'], ends['brine']['files']))
    finally:
        for t, b in bases.items():
            m, p = leftovers(b)
            if not keep and not m and not p:
                shutil.rmtree(b)
    s1, b1 = (state_changes(res[t]['runs'][0]['stdout']) for t in ('salt', 'brine'))
    same_res, ident, run_diffs = compare_runs(s1 or {}, b1)
    files = dict_diff(ends['salt']['files'], ends['brine']['files'])
    svc = services(set(paths))
    rep = {
        'formula': name, 'states': len(s1 or {}), 'same_result': same_res, 'identical': ident,
        'run1_differences': run_diffs,
        'salt_run1_failed': [k for k, v in (s1 or {}).items() if v.get('result') is False],
        'files_differ': files, 'files_compared': len(paths), 'file_text_diffs': text_diffs,
        'packages_differ': dict_diff(ends['salt']['packages'], ends['brine']['packages']),
        'packages_changed': {t: ends[t]['packages'] for t in ends},
        'accounts_differ': dict_diff(ends['salt']['accounts'], ends['brine']['accounts']),
        'service_links': {p: [ends['salt']['files'][p], ends['brine']['files'][p]] for p in svc},
        'processes': {t: res[t]['processes'] for t in res},
        'seconds': {t: [r['seconds'] for r in res[t]['runs']] for t in res},
        'second_run': {t: second_run(state_changes(res[t]['runs'][1]['stdout'])) for t in res},
        'undone': {t: {'upper_removed': not os.path.exists(bases[t]), 'leftover_mounts': res[t]['leftover_mounts'],
                       'leftover_processes': res[t]['leftover_processes']} for t in res},
    }
    json.dump(rep, open(os.path.join(out, name, 'compare.json'), 'w'), indent=1, default=str)
    return rep


def line(r):
    sr = r['second_run']
    n2 = lambda t: 'n/a' if sr[t][0] is None else str(len(sr[t][0]))
    end = 'same' if not (r['files_differ'] or r['packages_differ'] or r['accounts_differ']) else \
        f"files {len(r['files_differ'])}, pkgs {len(r['packages_differ'])}, accounts {len(r['accounts_differ'])} differ"
    return (f"{r['formula']:12} states {r['states']:3}  run1 same result {r['same_result']:3} identical {r['identical']:3}  "
            f"end state: {end} ({r['files_compared']} paths)  2nd-run changes salt {n2('salt')} brine {n2('brine')}  "
            f"seconds salt {r['seconds']['salt']} brine {r['seconds']['brine']}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--inner':
        base, tool, case, cmd = sys.argv[2:6]
        return inner(base, tool, case, json.loads(cmd))
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) < 3 or not os.environ.get('SALT_ORACLE') or os.geteuid() != 0:
        print(__doc__)
        sys.exit(2)
    corpus, out, names = args[0], args[1], args[2:]
    os.makedirs(out, exist_ok=True)
    ok = True
    with open(os.path.join(out, 'summary.txt'), 'a') as summary:
        for name in names:
            r = one_formula(os.path.abspath(corpus), name, out, '--keep' in sys.argv)
            good = r['states'] and r['identical'] == r['states'] and not (
                r['files_differ'] or r['packages_differ'] or r['accounts_differ']) and \
                r['second_run']['brine'][0] == []
            ok = ok and bool(good)
            print(line(r), flush=True)
            summary.write(line(r) + '\n')
    sys.exit(0 if ok else 1)


main()
