import type { StateContext, StateReturn } from '@brine/core';
import { rawCron } from '@brine/exec';
import { getGroup, getUser, secondaryGroups } from '../util/accounts.js';
import { asBool } from '../util/args.js';
import { fileDiff } from '../util/diff.js';
import { renderFileTemplate } from '../util/template.js';

/**
 * Salt's `cron.file`: a user's whole crontab from a file (salt://, optionally a template). Salt
 * manages a temp copy of the crontab with file.managed and installs it when it changed; the
 * results read the same: a diff, and the temp file's new owner as `user` and `group`.
 */
export async function cronFile(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const user = a.user === undefined || a.user === null ? 'root' : String(a.user);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  const account = await getUser(user, ctx.cmd);
  // Salt's user.info(user)['groups'][0]: the first of the user's groups by name
  const primary = account ? (await getGroup(account.gid, ctx.cmd))?.name : undefined;
  const groups = account ? [...new Set([...(primary ? [primary] : []), ...secondaryGroups(user)])].sort() : [];
  if (!account || groups.length === 0) return { ...ret, result: false, comment: `Could not identify group for user ${user}` };
  let current = await rawCron(ctx.cmd, user);
  if (!current.endsWith('\n')) current += '\n';
  // as Salt: the copy always holds at least a newline, so replace: False never replaces
  if (!asBool(a.replace, true) && current.length > 0) return { ...ret, comment: `User ${user} already has a crontab. No changes made` };
  const env = typeof a.saltenv === 'string' ? a.saltenv : 'base';
  const data = await ctx.files.get(name, env);
  if (data === undefined) return { ...ret, result: false, comment: `Unable to manage file: Source file ${name} not found in saltenv '${env}'` };
  let text = data.toString('utf8');
  if (typeof a.template === 'string' && a.template) {
    try {
      const vars = { source: name, user: a.user ?? null, group: a.group ?? null, mode: a.mode ?? null, attrs: [] };
      text = await renderFileTemplate(ctx, { engine: a.template, text, source: name, saltenv: env, vars, defaults: a.defaults, context: a.context });
    } catch (e) {
      return { ...ret, result: false, comment: `Unable to manage file: ${(e as Error).message}` };
    }
  }
  if (text === current) {
    return { ...ret, comment: ctx.test ? `The crontab of user ${user} is in the correct state` : `Crontab for user ${user} is in the correct state` };
  }
  const diff = fileDiff(current, text);
  if (ctx.test) return { ...ret, result: null, comment: `The following values are set to be changed:\ndiff: ${diff}\n` };
  const r = await ctx.cmd.run(['crontab', '-u', user, '-'], { stdin: text });
  if (r.retcode !== 0) return { ...ret, result: false, comment: `Unable to update user ${user} crontab. Error: ${r.stderr}` };
  return { ...ret, comment: `Crontab for user ${user} was updated`, changes: { diff, group: groups[0], user } };
}
