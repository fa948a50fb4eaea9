import type { CommandRunner } from '@brine/core';

export interface UnitStatus {
  loaded: boolean;
  active: boolean;
  enabled: boolean;
}

/** One unit's load, active and enablement state from `systemctl show`. */
export async function unitStatus(cmd: CommandRunner, name: string): Promise<UnitStatus> {
  const show = await cmd.run(['systemctl', 'show', '-p', 'LoadState', '-p', 'ActiveState', '-p', 'UnitFileState', '--', name]);
  const props: Record<string, string> = {};
  for (const line of show.stdout.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) props[line.slice(0, i)] = line.slice(i + 1);
  }
  return {
    loaded: show.retcode === 0 && props.LoadState !== 'not-found' && props.LoadState !== undefined,
    active: props.ActiveState === 'active' || props.ActiveState === 'reloading' || props.ActiveState === 'activating',
    enabled: ['enabled', 'enabled-runtime', 'static', 'alias', 'indirect', 'generated'].includes(props.UnitFileState ?? ''),
  };
}

/** `systemctl [--no-block] VERB -- NAME`: whether it worked, and what it said. */
export async function systemctl(cmd: CommandRunner, verb: string, name: string, noBlock = false): Promise<{ ok: boolean; err: string }> {
  const r = await cmd.run(['systemctl', ...(noBlock ? ['--no-block'] : []), verb, '--', name]);
  return { ok: r.retcode === 0, err: (r.stderr || r.stdout).trim() };
}
