/** Python's fnmatch.fnmatch on POSIX: `*` crosses `/`, whole-string match. */
function fnmatch(name: string, pat: string): boolean {
  let re = '';
  for (let i = 0; i < pat.length; i++) {
    const c = pat[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const j = pat.indexOf(']', i + 2);
      if (j === -1) re += '\\[';
      else {
        let body = pat.slice(i + 1, j).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = '^' + body.slice(1);
        re += `[${body}]`;
        i = j;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^(?:${re})$`, 's').test(name);
}

/** salt.utils.stringutils.check_include_exclude: globs, or regexes written E@... */
export function includeExclude(path: string, include?: string | string[], exclude?: string | string[]): boolean {
  const check = (p: string) => (p.startsWith('E@') ? new RegExp(p.slice(2)).test(path) : fnmatch(path, p));
  const given = (pat?: string | string[]) =>
    pat === undefined || pat === '' || (Array.isArray(pat) && pat.length === 0) ? undefined : [pat].flat().map(String);
  const inc = given(include)?.some(check);
  const exc = given(exclude) ? !given(exclude)!.some(check) : undefined;
  if (inc !== undefined && exc !== undefined) return inc && exc;
  return inc ?? exc ?? true;
}
