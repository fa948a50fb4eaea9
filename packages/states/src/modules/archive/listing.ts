import type { CommandRunner } from '@brine/core';

/** What an archive holds, in Salt's archive.list(verbose=True) shape. */
export interface ArchiveContents {
  dirs: string[];
  files: string[];
  links: string[];
  top_level_dirs: string[];
  top_level_files: string[];
  top_level_links: string[];
  /** Member names in archive order, as Salt reports extracted files (tar: no trailing slash). */
  names: string[];
}

export class ArchiveError extends Error {}

/** Salt's guess from the file name: tar, zip or rar. */
export function guessFormat(path: string): string | undefined {
  const n = path.toLowerCase();
  if (['tar', 'tar.gz', 'tgz', 'tar.bz2', 'tbz2', 'tbz', 'tar.xz', 'txz', 'tar.lzma', 'tlz'].some((e) => n.endsWith(`.${e}`))) return 'tar';
  if (n.endsWith('.zip')) return 'zip';
  if (n.endsWith('.rar')) return 'rar';
  return undefined;
}

function finish(dirs: string[], files: string[], links: string[], names: string[], strip?: number): ArchiveContents {
  const cut = (list: string[]) => {
    if (!strip) return [...list].sort();
    return list
      .map((p) => p.split('/').slice(strip).join('/'))
      .filter((p, i) => list[i]!.split('/').length > strip && p)
      .sort();
  };
  const d = cut(dirs);
  const f = cut(files);
  const l = cut(links);
  const top = d.filter((x) => x.split('/').length - 1 === 1);
  // Salt also counts the first component of the dirs' common prefix as a top-level dir
  let prefix = d.length
    ? d.reduce((a, b) => {
        let i = 0;
        while (i < a.length && a[i] === b[i]) i++;
        return a.slice(0, i);
      })
    : '';
  if (prefix.includes('/')) {
    prefix = `${prefix.split('/')[0]}/`;
    if (!top.includes(prefix)) top.push(prefix);
  }
  return {
    dirs: d,
    files: f,
    links: l,
    top_level_dirs: top,
    top_level_files: f.filter((x) => !x.includes('/')),
    top_level_links: l.filter((x) => !x.includes('/')),
    names,
  };
}

/** `tar -tv` of the archive: its members and their types (GNU tar reads the compression itself). */
async function listTar(cmd: CommandRunner, file: string, strip?: number, listOptions?: string[]): Promise<ArchiveContents> {
  const r = await cmd.run(['tar', '--numeric-owner', '--quoting-style=literal', ...(listOptions ?? []), '-tvf', file], { env: { LC_ALL: 'C' } });
  if (r.retcode !== 0) {
    throw new ArchiveError(
      `Unable to list contents of ${file}. If this is an XZ-compressed tar archive, install XZ Utils to enable listing its contents. If it is compressed using something other than XZ, it may be necessary to specify CLI options to decompress the archive. See the documentation for details.`,
    );
  }
  const dirs: string[] = [];
  const files: string[] = [];
  const links: string[] = [];
  const names: string[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^(\S)\S*\s+\S+\s+[\d,]+\s+\S+\s+\S+\s(.*)$/.exec(line);
    if (!m) continue;
    const type = m[1];
    let name = m[2]!;
    if (type === 'l') name = name.replace(/ -> .*$/, '');
    else if (type === 'h') name = name.replace(/ link to .*$/, '');
    const bare = name.replace(/\/+$/, '');
    names.push(bare);
    if (type === 'l') links.push(bare);
    else if (type === 'd') dirs.push(`${bare}/`);
    else files.push(bare);
  }
  return finish(dirs, files, links, names, strip);
}

/** `zipinfo` of the archive; parents of files count as dirs, as in Salt. */
async function listZip(cmd: CommandRunner, file: string): Promise<ArchiveContents> {
  const r = await cmd.run(['unzip', '-Z', file], { env: { LC_ALL: 'C' } });
  if (r.retcode !== 0) throw new ArchiveError(`${file} is not a ZIP file`);
  const dirs = new Set<string>();
  const files: string[] = [];
  const links: string[] = [];
  const names: string[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^([-dlrwxsStT?]{10})\s+\S+\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s(.*)$/.exec(line);
    if (!m) continue;
    const name = m[2]!;
    names.push(name);
    if (m[1]!.startsWith('l')) links.push(name);
    else if (m[1]!.startsWith('d') || name.endsWith('/')) dirs.add(name);
    else files.push(name);
  }
  for (const f of [...files]) {
    const i = f.lastIndexOf('/');
    if (i >= 0) {
      const parent = f.slice(0, i + 1);
      dirs.add(parent);
      const at = files.indexOf(parent);
      if (at >= 0) files.splice(at, 1);
    }
  }
  return finish([...dirs], files, links, names);
}

export function listArchive(cmd: CommandRunner, file: string, format: string, strip?: number, listOptions?: string[]): Promise<ArchiveContents> {
  if (format === 'zip') return listZip(cmd, file);
  if (format === 'tar') return listTar(cmd, file, strip, listOptions);
  throw new ArchiveError(`Unsupported archive format '${format}'`);
}
