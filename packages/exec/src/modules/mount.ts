import { execErrors } from '../errors.js';
import type { ExecFunction, Param } from '../function.js';
import { activeMounts, MountError, mount, readFstab, remount, rmFstab, setFstab, umount } from '../host/mounts.js';

/** Salt's mount execution module on Linux (see host/mounts.ts). */
async function call<T>(fun: string, f: () => Promise<T> | T): Promise<{ return: T }> {
  try {
    return { return: await f() };
  } catch (e) {
    if (e instanceof MountError) throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun, detail: e.message });
    throw e;
  }
}

const name: Param = { name: 'name', type: 'string', required: true };
const config: Param = { name: 'config', type: 'string', default: '/etc/fstab' };
const mountParams: Param[] = [
  name,
  { name: 'device', type: 'string', required: true },
  { name: 'mkmnt', type: 'boolean', default: false },
  { name: 'fstype', type: 'string', default: '' },
  { name: 'opts', type: ['string', 'list'], default: 'defaults' },
  { name: 'user', type: 'string' },
];
const opt = (v: unknown) => (v == null ? undefined : String(v));

export const mountFunctions: ExecFunction[] = [
  {
    name: 'mount.active',
    doc: 'The mounted file systems, keyed by mount point (from /proc/self/mountinfo).',
    params: [{ name: 'extended', type: 'boolean', default: false }],
    run: (_a, ctx) => call('mount.active', () => activeMounts(ctx.cmd)),
  },
  {
    name: 'mount.is_mounted',
    doc: 'Whether something is mounted on the path.',
    params: [name],
    run: (a, ctx) => call('mount.is_mounted', async () => String(a.name) in (await activeMounts(ctx.cmd))),
  },
  {
    name: 'mount.fstab',
    doc: 'The entries of an fstab, keyed by mount point.',
    params: [config],
    run: (a) => call('mount.fstab', () => readFstab(String(a.config))),
  },
  {
    name: 'mount.set_fstab',
    doc: "Adds or updates a mount point's fstab entry: present, new or change.",
    params: [
      name,
      { name: 'device', type: 'string', required: true },
      { name: 'fstype', type: 'string', required: true },
      { name: 'opts', type: ['string', 'list'], default: 'defaults' },
      { name: 'dump', type: ['number', 'string'], default: 0 },
      { name: 'pass_num', type: ['number', 'string'], default: 0 },
      config,
      { name: 'test', type: 'boolean', default: false },
      { name: 'match_on', type: ['string', 'list'], default: 'auto' },
    ],
    run: (a) =>
      call('mount.set_fstab', () =>
        setFstab({
          name: String(a.name),
          device: String(a.device),
          fstype: String(a.fstype),
          opts: a.opts as string | string[],
          dump: a.dump,
          pass_num: a.pass_num,
          config: String(a.config),
          test: a.test === true,
          match_on: a.match_on as string | string[],
        }),
      ),
  },
  {
    name: 'mount.rm_fstab',
    doc: "Removes a mount point's fstab entries (only the device's, when given).",
    params: [name, { name: 'device', type: 'string' }, config],
    run: (a) => call('mount.rm_fstab', () => rmFstab(String(a.name), opt(a.device), String(a.config))),
  },
  {
    name: 'mount.mount',
    doc: 'Mounts a device: True, or the error mount printed.',
    params: mountParams,
    run: (a, ctx) =>
      call('mount.mount', () => mount(ctx.cmd, String(a.name), String(a.device), String(a.fstype), a.opts as string | string[], a.mkmnt === true, opt(a.user))),
  },
  {
    name: 'mount.remount',
    doc: 'Remounts with new options (mounts when nothing is mounted there).',
    params: mountParams,
    run: (a, ctx) =>
      call('mount.remount', () =>
        remount(ctx.cmd, String(a.name), String(a.device), String(a.fstype), a.opts as string | string[], a.mkmnt === true, opt(a.user)),
      ),
  },
  {
    name: 'mount.umount',
    doc: 'Unmounts a path: True, or why not.',
    params: [name, { name: 'device', type: 'string' }, { name: 'user', type: 'string' }, { name: 'lazy', type: 'boolean', default: false }],
    run: (a, ctx) => call('mount.umount', () => umount(ctx.cmd, String(a.name), opt(a.device), a.lazy === true, opt(a.user))),
  },
];
