import type { ExecContext, ExecFunction } from '../function.js';
import { execErrors } from '../errors.js';

interface AddrInfo {
  family: string;
  local: string;
  prefixlen: number;
  broadcast?: string;
  scope?: string;
  label?: string;
  secondary?: boolean;
}

interface Link {
  ifname: string;
  flags?: string[];
  link?: string;
  address?: string;
  addr_info?: AddrInfo[];
}

function netmask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (bits >>> s) & 255).join('.');
}

/** Salt's interfaces(): per interface up, parent, hwaddr, inet, inet6 and secondary, from iproute2. */
async function interfaces(ctx: ExecContext): Promise<Record<string, Record<string, unknown>>> {
  const r = await ctx.cmd.run(['ip', '-j', 'addr', 'show']);
  if (r.retcode !== 0) throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun: 'network.interfaces', detail: r.stderr || 'ip addr show failed' });
  const out: Record<string, Record<string, unknown>> = {};
  for (const l of JSON.parse(r.stdout) as Link[]) {
    const data: Record<string, unknown> = { up: (l.flags ?? []).includes('UP') };
    if (l.link) data.parent = l.link;
    if (l.address !== undefined) data.hwaddr = l.address;
    for (const a of l.addr_info ?? []) {
      let obj: Record<string, unknown>;
      if (a.family === 'inet') obj = { address: a.local, netmask: netmask(a.prefixlen), broadcast: a.broadcast ?? null, label: a.label ?? l.ifname };
      else if (a.family === 'inet6') obj = { address: a.local, prefixlen: String(a.prefixlen), scope: a.scope ?? null };
      else continue;
      if (a.secondary) ((data.secondary ??= []) as unknown[]).push({ type: a.family, ...obj });
      else ((data[a.family] ??= []) as unknown[]).push(obj);
    }
    out[l.ifname] = data;
  }
  return out;
}

function v4Num(a: string): number {
  return a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function inCidr(addr: string, cidr: string): boolean {
  const [net, bits] = cidr.split('/');
  const b = Number(bits ?? 32);
  const mask = b === 0 ? 0 : (0xffffffff << (32 - b)) >>> 0;
  return (v4Num(addr) & mask) >>> 0 === (v4Num(net!) & mask) >>> 0;
}

function isPrivate4(a: string): boolean {
  return ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16', '192.0.2.0/24', '100.64.0.0/10'].some((c) => inCidr(a, c));
}

/** The addresses of one family, loopback left out unless asked, numerically sorted as Salt's ipaddress objects. */
async function addrs(ctx: ExecContext, family: 'inet' | 'inet6', a: Record<string, unknown>): Promise<string[]> {
  const ifs = await interfaces(ctx);
  const want = typeof a.interface === 'string' ? a.interface : undefined;
  const found = new Set<string>();
  for (const [name, d] of Object.entries(ifs)) {
    if (want !== undefined && name !== want) continue;
    const list = [...((d[family] as Record<string, unknown>[]) ?? []), ...((d.secondary as Record<string, unknown>[]) ?? []).filter((s) => s.type === family)];
    for (const x of list) {
      const ip = String(x.address);
      const loop = family === 'inet' ? ip.startsWith('127.') : ip === '::1';
      if (loop && a.include_loopback !== true) continue;
      found.add(ip);
    }
  }
  let out = [...found];
  if (family === 'inet') {
    out.sort((x, y) => v4Num(x) - v4Num(y));
    if (typeof a.cidr === 'string') out = out.filter((x) => inCidr(x, a.cidr as string));
    if (a.type === 'private') out = out.filter(isPrivate4);
    if (a.type === 'public') out = out.filter((x) => !isPrivate4(x));
  } else out.sort();
  return out;
}

const addrParams = [
  { name: 'interface', type: 'string' as const },
  { name: 'include_loopback', type: 'boolean' as const, default: false },
  { name: 'cidr', type: 'string' as const },
  { name: 'type', type: 'string' as const },
];

/** Salt's network module: the interface facts formulas read. */
export const networkFunctions: ExecFunction[] = [
  {
    name: 'network.interfaces',
    doc: 'Every interface: up, hwaddr, inet [{address, netmask, broadcast, label}], inet6 [{address, prefixlen, scope}], secondary.',
    params: [],
    run: async (_a, ctx) => ({ return: await interfaces(ctx) }),
  },
  {
    name: 'network.ip_addrs',
    doc: 'The IPv4 addresses of this host (interface=, include_loopback=, cidr=, type=private|public), sorted.',
    params: addrParams,
    run: async (a, ctx) => ({ return: await addrs(ctx, 'inet', a) }),
  },
  {
    name: 'network.ip_addrs6',
    doc: 'The IPv6 addresses of this host (interface=, include_loopback=), sorted.',
    params: addrParams,
    run: async (a, ctx) => ({ return: await addrs(ctx, 'inet6', a) }),
  },
  {
    name: 'network.hw_addr',
    doc: 'The hardware address of the interface.',
    params: [{ name: 'iface', type: 'string', required: true }],
    run: async (a, ctx) => {
      const d = (await interfaces(ctx))[a.iface as string];
      return {
        return: d ? (d.hwaddr ?? '') : `Interface "${String(a.iface)}" not in available interfaces: "${Object.keys(await interfaces(ctx)).join('", "')}"`,
      };
    },
  },
];
