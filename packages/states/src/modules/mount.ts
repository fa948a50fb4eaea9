import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ArgSpec, StateContext, StateModule, StateReturn } from '@brine/core';
import {
  activeMounts,
  mount,
  MountError,
  readFstab,
  readMountCache,
  remount,
  resolveIdOpts,
  rmFstab,
  setFstab,
  umount,
  writeMountCache,
  type ActiveMount,
} from '@brine/exec';

/**
 * Salt's mount.mounted, mount.unmounted and their watch (a remount) on Linux: the kernel's mount
 * table through the command runner, the fstab edited as Salt's set_fstab/rm_fstab do, and
 * Salt's mount cache, so that an option dropped from the state still forces a remount.
 */

export interface MountModuleOptions {
  /** Salt's mount cache (default /var/cache/brine/mounts.json). */
  cacheFile?: string;
}

// Options that never show in the mount table, so asking for them must not force a remount.
const INVISIBLE = [
  '_netdev',
  'actimeo',
  'bg',
  'comment',
  'defaults',
  'delay_connect',
  'direct-io-mode',
  'intr',
  'loop',
  'nointr',
  'nobootwait',
  'nofail',
  'password',
  'reconnect',
  'retry',
  'soft',
  'auto',
  'users',
  'bind',
  'nonempty',
  'transform_symlinks',
  'port',
  'backup-volfile-servers',
];
const INVISIBLE_KEYS = ['actimeo', 'comment', 'credentials', 'direct-io-mode', 'password', 'port', 'retry', 'secretfile'];
const TRANSLATE: Record<string, string> = { tcp: 'proto=tcp', udp: 'proto=udp' };
const IGNORE_FS_KEYS: Record<string, string[]> = { ramfs: ['size'] };

const strList = (v: unknown): string[] => (v == null ? [] : Array.isArray(v) ? v.map(String) : String(v).split(','));
const user = (a: Record<string, unknown>) => (a.user == null ? undefined : String(a.user));
const strMap = (v: unknown): Record<string, string[]> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string[]>) : {});

/** size=2m as the kernel reports it: size=2048k. */
function sizeInK(opt: string): string {
  const m = /^size=([0-9]+)(k|m|g)/.exec(opt);
  if (!m) return opt;
  const n = Number(m[1]) * (m[2] === 'g' ? 1024 * 1024 : m[2] === 'm' ? 1024 : 1);
  return `size=${n}k`;
}

const realpath = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    // as Python's os.path.realpath: a path that does not exist resolves lexically
    return resolve(p);
  }
};

/** The options of the state that the mounted file system does not show: these force a remount. */
async function optionsToChange(ctx: StateContext, a: Record<string, unknown>, opts: string[], fstype: string, now: ActiveMount): Promise<string[]> {
  const invisible = new Set([...INVISIBLE, ...strList(a.extra_mount_invisible_options), ...strList(a.hidden_opts)]);
  const invisibleKeys = new Set([...INVISIBLE_KEYS, ...strList(a.extra_mount_invisible_keys)]);
  const ignoreKeys = { ...IGNORE_FS_KEYS, ...strMap(a.extra_mount_ignore_fs_keys) }[fstype] ?? [];
  const translate = { ...TRANSLATE, ...(strMap(a.extra_mount_translate_options) as unknown as Record<string, string>) };
  const shown = new Set([...now.opts, ...now.superopts.map(sizeInK)]);
  const trigger: string[] = [];
  for (let opt of opts) {
    opt = translate[opt] ?? opt;
    const key = opt.split('=')[0]!;
    if (invisibleKeys.has(key)) opt = key;
    opt = sizeInK(opt);
    if (fstype === 'cifs' && key === 'user') opt = `username=${opt.split('=')[1]}`;
    if (ignoreKeys.includes(opt.split('=')[0]!)) opt = opt.split('=')[0]!;
    [opt] = await resolveIdOpts(ctx.cmd, [opt]);
    // Salt 3007 overwrites a wanted size= with the mounted one here, so it never remounts a tmpfs
    // for a new size; Brine compares the size the state asks for.
    if (!shown.has(opt!) && !invisible.has(opt!) && !ignoreKeys.includes(opt!) && !invisibleKeys.has(opt!)) trigger.push(opt!);
  }
  return trigger;
}

/** A remount for changed options: network and FUSE file systems need a full unmount and mount. */
async function forceRemount(
  ctx: StateContext,
  ret: StateReturn,
  why: string,
  realName: string,
  device: string,
  fstype: string,
  opts: string[],
  mkmnt: boolean,
): Promise<StateReturn | null> {
  if (fstype === 'nfs' || fstype === 'cvfs' || fstype.startsWith('fuse')) {
    ret.changes.umount = `Forced unmount and mount because options (${why}) changed`;
    let out = await umount(ctx.cmd, realName);
    if (out !== true) {
      ret.changes.umount = `Forced a lazy unmount and mount because the previous unmount failed and because the options (${why}) changed`;
      out = await umount(ctx.cmd, realName, undefined, true);
      if (out !== true) return { ...ret, result: false, comment: `Unable to unmount ${realName}: ${out}.` };
    }
    const mounted = await mount(ctx.cmd, realName, device, fstype, opts, mkmnt);
    ret.result = mounted === true;
    if (mounted !== true) ret.comment = mounted;
    return null;
  }
  ret.changes.umount = `Forced remount because options (${why}) changed`;
  const out = await remount(ctx.cmd, realName, device, fstype, opts, mkmnt);
  ret.result = out === true;
  if (out !== true) ret.comment = out;
  return null;
}

const mountedArgs: Record<string, ArgSpec> = {
  device: { type: 'string' },
  fstype: { type: 'string' },
  mkmnt: { type: 'boolean', default: false },
  opts: { type: ['string', 'list'], default: 'defaults' },
  dump: { type: ['number', 'string'], default: 0 },
  pass_num: { type: ['number', 'string'], default: 0 },
  config: { type: 'string', default: '/etc/fstab' },
  persist: { type: 'boolean', default: true },
  mount: { type: 'boolean', default: true },
  user: { type: 'string' },
  match_on: { type: ['string', 'list'], default: 'auto' },
  device_name_regex: { type: 'list' },
  extra_mount_invisible_options: { type: 'list' },
  extra_mount_invisible_keys: { type: 'list' },
  extra_mount_ignore_fs_keys: { type: 'dict' },
  extra_mount_translate_options: { type: 'dict' },
  hidden_opts: { type: ['string', 'list'] },
  bind_mount_copy_active_opts: { type: 'boolean', default: true },
};

async function mounted(a: Record<string, unknown>, ctx: StateContext, cacheFile: string): Promise<StateReturn> {
  let name = String(a.name ?? '');
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  const device = a.device == null ? '' : String(a.device);
  const fstype = a.fstype == null ? '' : String(a.fstype);
  if (!name) return { ...ret, result: false, comment: 'Must provide name to mount.mounted' };
  if (!device) return { ...ret, result: false, comment: 'Must provide device to mount.mounted' };
  if (!fstype) return { ...ret, result: false, comment: 'Must provide fstype to mount.mounted' };
  let opts = strList(a.opts ?? 'defaults');
  const mkmnt = a.mkmnt === true;
  const wantMount = a.mount !== false;
  if (name !== '/') name = name.replace(/\/+$/, '');
  let updateCache = false;
  let active = await activeMounts(ctx.cmd);
  const realName = realpath(name);
  const key = realName.replaceAll(' ', '\\040');
  const resolved = await resolveDevice(ctx, a, device, opts, active, key);
  if ('result' in resolved) return { ...ret, ...resolved };
  const { realDevice, deviceList } = resolved;
  opts = resolved.opts;

  if (key in active && wantMount) {
    const now = active[key]!;
    deviceList.push(now.device, realpath(now.device));
    for (const alt of [now.alt_device, now.device_uuid, now.device_label]) if (alt && !deviceList.includes(alt)) deviceList.push(alt);
    if (opts.length) {
      const trigger = await optionsToChange(ctx, a, opts, fstype, now);
      if (trigger.length) {
        const why = trigger.sort().join(',');
        if (ctx.test) return { ...ret, result: null, comment: `Remount would be forced because options (${why}) changed` };
        const stop = await forceRemount(ctx, ret, why, realName, device, fstype, opts, mkmnt);
        if (stop) return stop;
        opts = opts.filter((o) => o !== 'remount');
        updateCache = true;
      }
      const cached = readMountCache(cacheFile, realName);
      if (cached) {
        const missing = cached.opts.filter((o) => !opts.includes(o));
        if (missing.length) {
          // Salt's own comment lacks the space before "changed"
          if (ctx.test) return { ...ret, result: null, comment: `Remount would be forced because options (${missing.join(',')})changed` };
          const stop = await forceRemount(ctx, ret, missing.join(','), realName, device, fstype, opts, mkmnt);
          if (stop) return stop;
          opts = opts.filter((o) => o !== 'remount');
        }
      }
      updateCache = true;
    }
    if (!deviceList.includes(realDevice)) {
      const ignoredBy = strList(a.device_name_regex)
        .map((re) => deviceList.find((d) => new RegExp(`^(?:${re})`).test(d)))
        .find(Boolean);
      if (ignoredBy) {
        ret.result = true;
        ret.comment = `An umount will not be forced because device matched device_name_regex: ${ignoredBy}`;
      } else if (ctx.test) {
        return { ...ret, result: null, comment: `An umount would have been forced because devices do not match.  Watched: ${device}` };
      } else {
        ret.changes.umount = `Forced unmount because devices don't match. Wanted: ${device}${realDevice !== device ? ` (${realDevice})` : ''}, current: ${deviceList.join(', ')}`;
        await umount(ctx.cmd, realName, undefined, false, user(a));
        active = await activeMounts(ctx.cmd);
        if (key in active) return { ...ret, result: false, comment: 'Unable to unmount' };
        updateCache = true;
      }
    } else ret.comment = 'Target was already mounted';
  }

  if (!(key in active)) {
    if (wantMount) {
      if (ctx.test) {
        const comment = existsSync(name)
          ? `${name} would be mounted`
          : mkmnt
            ? `${name} would be created and mounted`
            : `${name} does not exist and would not be created`;
        return { ...ret, result: null, comment };
      }
      if (!existsSync(name) && !mkmnt) return { ...ret, result: false, comment: 'Mount directory is not present' };
      const out = await mount(ctx.cmd, name, device, fstype, opts, mkmnt, user(a));
      active = await activeMounts(ctx.cmd);
      updateCache = true;
      if (out !== true) return { ...ret, result: false, comment: out };
      if (key in active) {
        ret.comment = 'Target was successfully mounted';
        ret.changes.mount = true;
      }
    } else if (!existsSync(name)) {
      if (ctx.test) {
        ret.result = null;
        ret.comment = mkmnt ? `${name} would be created, but not mounted` : `${name} does not exist and would neither be created nor mounted`;
      } else if (mkmnt) {
        mkdirSync(name, { recursive: true });
        ret.comment = `${name} was created, not mounted`;
      } else ret.comment = `${name} not present and not mounted`;
    } else ret.comment = ctx.test ? `${name} would not be mounted` : `${name} not mounted`;
  }

  return persist(a, ctx, ret, { name, device, fstype, opts, mkmnt, wantMount, realName, updateCache, cacheFile });
  return ret;
}

/** The device as the mount table lists it (and its other names), and the options a bind mount copies. */
async function resolveDevice(
  ctx: StateContext,
  a: Record<string, unknown>,
  device: string,
  opts: string[],
  active: Awaited<ReturnType<typeof activeMounts>>,
  key: string,
): Promise<{ realDevice: string; deviceList: string[]; opts: string[] } | { result: false; comment: string }> {
  let realDevice = device;
  const deviceList: string[] = [];
  if (device.startsWith('/')) {
    if (opts.includes('bind') && key in active) {
      let d = device.replaceAll(' ', '\\040');
      while (!(d in active) && d !== '/' && d !== '.') d = dirname(d.replaceAll('\\040', ' ')).replaceAll(' ', '\\040');
      if (d in active) {
        if (a.bind_mount_copy_active_opts !== false) opts = [...new Set([...opts, ...active[d]!.opts, ...active[d]!.superopts])].sort();
        active[key]!.opts.push('bind');
        realDevice = active[key]!.device.startsWith('/') ? active[d]!.device : active[key]!.device;
      } else realDevice = active[key]!.device;
    } else realDevice = realpath(device);
  } else if (device.toUpperCase().startsWith('UUID=')) {
    realDevice = device.split('=')[1]!.replace(/^"|"$/g, '').toLowerCase();
  } else if (device.toUpperCase().startsWith('LABEL=')) {
    const label = device.split('=')[1]!;
    const r = await ctx.cmd.run(['blkid', '-t', `LABEL=${label}`]);
    if (r.retcode > 0) return { result: false, comment: `Unable to find device with label ${label}.` };
    for (const line of r.stdout.split('\n').filter(Boolean)) deviceList.push(line.split(':')[0]!);
    realDevice = deviceList[0] ?? device;
  }
  // LVM volumes are listed under their /dev/mapper name
  const lvs = /^\/dev\/([^/]+)\/([^/]+)$/.exec(device);
  if (lvs) {
    const mapper = `/dev/mapper/${lvs[1]!.replaceAll('-', '--')}-${lvs[2]!.replaceAll('-', '--')}`;
    if (existsSync(mapper)) realDevice = mapper;
  }
  // a FUSE device given as `sshfs#host:/path` is listed as `host:/path`
  const fuse = /^\w+#(.+)/.exec(device);
  if (fuse) realDevice = fuse[1]!;
  return { realDevice, deviceList, opts };
}

/** Writes the fstab entry unless persist is off, and the mount cache after a (re)mount. */
function persist(
  a: Record<string, unknown>,
  ctx: StateContext,
  ret: StateReturn,
  m: {
    name: string;
    device: string;
    fstype: string;
    opts: string[];
    mkmnt: boolean;
    wantMount: boolean;
    realName: string;
    updateCache: boolean;
    cacheFile: string;
  },
): StateReturn {
  const { name, device, fstype, opts, mkmnt, wantMount, realName, updateCache, cacheFile } = m;
  if (a.persist === false) return ret;
  const fstab = {
    name,
    device,
    fstype,
    opts,
    dump: a.dump,
    pass_num: a.pass_num,
    config: String(a.config ?? '/etc/fstab'),
    match_on: a.match_on as string | string[] | undefined,
  };
  let out: string;
  try {
    out = setFstab({ ...fstab, test: ctx.test });
  } catch (e) {
    if (!(e instanceof MountError)) throw e;
    return { ...ret, result: false, comment: `An exception occurred in this state: ${e.message}` };
  }
  if (ctx.test) {
    if (out === 'present') return ret;
    const persistent = wantMount
      ? `${name} is mounted, but needs to be written to the fstab in order to be made persistent.`
      : `${name} needs to be written to the fstab in order to be made persistent.`;
    const update = wantMount ? `${name} is mounted, but its fstab entry must be updated.` : `The ${name} fstab entry must be updated.`;
    return { ...ret, result: null, comment: `${ret.comment}. ${out === 'new' ? persistent : update}` };
  }
  if (updateCache) {
    // best effort, as the cache only sharpens later runs: an unwritable cache must not fail a mount
    try {
      writeMountCache(cacheFile, realName, { device, fstype, mkmnt, opts });
    } catch {
      /* see above */
    }
  }
  if (out === 'present') ret.comment += '. Entry already exists in the fstab.';
  else if (out === 'new') {
    ret.changes.persist = 'new';
    ret.comment += '. Added new entry to the fstab.';
  } else {
    ret.changes.persist = 'update';
    ret.comment += '. Updated the entry in the fstab.';
  }
  return ret;
}

async function unmounted(a: Record<string, unknown>, ctx: StateContext, cacheFile: string): Promise<StateReturn> {
  const name = String(a.name ?? '');
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  if (!name) return { ...ret, result: false, comment: 'Must provide name to mount.unmounted' };
  const device = a.device == null ? undefined : String(a.device);
  const config = String(a.config ?? '/etc/fstab');
  const active = await activeMounts(ctx.cmd);
  if (!(name.replaceAll(' ', '\\040') in active)) ret.comment = 'Target was already unmounted';
  else {
    if (ctx.test) return { ...ret, result: null, comment: `Mount point ${name} is mounted but should not be` };
    const out = await umount(ctx.cmd, name, device, false, user(a));
    if (out === true) {
      ret.comment = 'Target was successfully unmounted';
      ret.changes.umount = true;
    } else {
      ret.comment = out;
      ret.result = false;
    }
    try {
      writeMountCache(cacheFile, name, null);
    } catch {
      /* best effort, as in mounted */
    }
  }
  if (a.persist !== true) return ret;
  const entries = readFstab(config);
  if (!(name in entries)) {
    ret.comment += '. fstab entry not found';
    return ret;
  }
  if (device && entries[name]!.device !== device) {
    ret.comment += `. fstab entry for device ${device} not found`;
    return ret;
  }
  if (ctx.test) return { ...ret, result: null, comment: `Mount point ${name} is unmounted but needs to be purged from ${config} to be made persistent` };
  try {
    rmFstab(name, device, config);
    ret.comment += '. Removed target from fstab';
    ret.changes.persist = 'purged';
  } catch (e) {
    if (!(e instanceof MountError)) throw e;
    ret.result = false;
    ret.comment += '. Failed to persist purge';
  }
  return ret;
}

export function mountModule(options: MountModuleOptions = {}): StateModule {
  const cacheFile = () => options.cacheFile ?? '/var/cache/brine/mounts.json';
  return {
    name: 'mount',
    available() {
      return process.platform === 'linux' ? { available: true } : { available: false, reason: 'mount states work on Linux only' };
    },
    functions: {
      mounted: { args: mountedArgs, run: (a, ctx) => mounted(a, ctx, cacheFile()) },
      unmounted: {
        args: {
          device: { type: 'string' },
          config: { type: 'string', default: '/etc/fstab' },
          persist: { type: 'boolean', default: false },
          user: { type: 'string' },
        },
        run: (a, ctx) => unmounted(a, ctx, cacheFile()),
      },
    },
    async modWatch(a, ctx) {
      const name = String(a.name);
      if (a.sfun !== 'mounted') return { name, changes: {}, result: true, comment: `Watch not supported in ${String(a.sfun)} at this time` };
      // Salt 3007 remounts here even under test=True; test mode never changes the host.
      if (ctx.test) return { name, changes: {}, result: null, comment: `${name} would be remounted` };
      const out = await remount(ctx.cmd, name, String(a.device), String(a.fstype ?? ''), strList(a.opts ?? 'defaults'), false, user(a));
      return out === true
        ? { name, changes: {}, result: true, comment: `${name} remounted` }
        : { name, changes: {}, result: false, comment: `${name} failed to remount: ${out}` };
    },
  };
}
