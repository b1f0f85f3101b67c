// FolderMaker (issue 27, the decisions.jsonl mirror's new-run cost): folders made level by level below the nearest one
// it knows, with the recursive mkdir as the fallback when what it knew is no longer true.
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderMaker } from '../../src/ledger/folder-maker.js';
import { tmpDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function base(): string {
  const t = tmpDir();
  cleanups.push(t.cleanup);
  return path.join(t.dir, 'runs');
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

describe('FolderMaker', () => {
  it('makes a missing root and every level below it, then new runs under the known root', () => {
    const root = base();
    const folders = new FolderMaker(root);
    for (const run of ['a', 'b', 'c']) {
      const dir = path.join(root, run, 'build', 'routing');
      folders.ensure(dir);
      expect(isDir(dir)).toBe(true);
      folders.ensure(dir); // known: nothing to do, still there
      expect(isDir(dir)).toBe(true);
    }
    folders.ensure(path.join(root, 'a', 'review', 'routing')); // a second flow of a known run
    expect(isDir(path.join(root, 'a', 'review', 'routing'))).toBe(true);
  });

  it('levels made meanwhile by another writer (EEXIST) are taken as they are', () => {
    const root = base();
    const folders = new FolderMaker(root);
    folders.ensure(path.join(root, 'first', 'f', 'routing'));
    mkdirSync(path.join(root, 'other', 'f'), { recursive: true });
    folders.ensure(path.join(root, 'other', 'f', 'routing'));
    expect(isDir(path.join(root, 'other', 'f', 'routing'))).toBe(true);
  });

  it('a known folder removed since (ENOENT below it) falls back to making the whole path', () => {
    const root = base();
    const folders = new FolderMaker(root);
    folders.ensure(path.join(root, 'r1', 'f', 'routing'));
    rmSync(root, { recursive: true });
    folders.ensure(path.join(root, 'r2', 'f', 'routing'));
    expect(isDir(path.join(root, 'r2', 'f', 'routing'))).toBe(true);
    // And a removed run folder it knew whole comes back when asked for again after forgetting.
    rmSync(path.join(root, 'r2'), { recursive: true });
    folders.ensure(path.join(root, 'r2', 'g', 'routing'));
    expect(isDir(path.join(root, 'r2', 'g', 'routing'))).toBe(true);
  });

  it('a file where a folder should be is an error, not a silent success', () => {
    const root = base();
    const folders = new FolderMaker(root);
    folders.ensure(path.join(root, 'ok', 'f', 'routing'));
    writeFileSync(path.join(root, 'blocked'), 'not a folder');
    expect(() => folders.ensure(path.join(root, 'blocked', 'f', 'routing'))).toThrow(/ENOTDIR|EEXIST/);
  });

  it('with a bound of two folders it still makes every path (forgotten folders are walked again)', () => {
    const root = base();
    const folders = new FolderMaker(root, 2);
    for (let i = 0; i < 20; i++) folders.ensure(path.join(root, `r${i}`, 'f', 'routing'));
    for (let i = 0; i < 20; i++) expect(isDir(path.join(root, `r${i}`, 'f', 'routing'))).toBe(true);
  });
});
