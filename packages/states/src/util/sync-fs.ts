import * as fs from 'node:fs';
import type * as fsp from 'node:fs/promises';

/**
 * The `node:fs/promises` calls the file states use, done synchronously behind a promise. States
 * run one after another, and each asynchronous fs call is a round trip through the libuv thread
 * pool: for 1,000 small files that waiting was most of the run. The calls and their errors are
 * the same; only the waiting goes.
 */
function wrap<F>(sync: (...args: never[]) => unknown): F {
  const call = sync as (...args: unknown[]) => unknown;
  return (async (...args: unknown[]) => call(...args)) as F;
}

export const readFile = wrap<typeof fsp.readFile>(fs.readFileSync);
export const writeFile = wrap<typeof fsp.writeFile>(fs.writeFileSync);
export const appendFile = wrap<typeof fsp.appendFile>(fs.appendFileSync);
export const rename = wrap<typeof fsp.rename>(fs.renameSync);
export const rm = wrap<typeof fsp.rm>(fs.rmSync);
export const chown = wrap<typeof fsp.chown>(fs.chownSync);
export const lchown = wrap<typeof fsp.lchown>(fs.lchownSync);
export const chmod = wrap<typeof fsp.chmod>(fs.chmodSync);
export const mkdir = wrap<typeof fsp.mkdir>(fs.mkdirSync);
export const stat = wrap<typeof fsp.stat>(fs.statSync);
export const lstat = wrap<typeof fsp.lstat>(fs.lstatSync);
export const readlink = wrap<typeof fsp.readlink>(fs.readlinkSync);
export const symlink = wrap<typeof fsp.symlink>(fs.symlinkSync);
export const readdir = wrap<typeof fsp.readdir>(fs.readdirSync);
