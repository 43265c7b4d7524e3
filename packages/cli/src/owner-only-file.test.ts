import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeOwnerOnlyFile } from './owner-only-file.js';

const directory = (): string => mkdtempSync(join(tmpdir(), 'owner-only-'));
const modeOf = (path: string): number => lstatSync(path).mode & 0o777;

describe('writeOwnerOnlyFile', () => {
  it('creates the file readable by its owner only', () => {
    const path = join(directory(), 'snapshot.json');
    writeOwnerOnlyFile(path, 'secret');
    expect(readFileSync(path, 'utf8')).toBe('secret');
    expect(modeOf(path)).toBe(0o600);
  });

  it('leaves an existing file readable by its owner only, whatever its mode was', () => {
    const path = join(directory(), 'snapshot.json');
    writeFileSync(path, 'old, and longer than the new text', { mode: 0o644 });
    writeOwnerOnlyFile(path, 'secret');
    expect(readFileSync(path, 'utf8')).toBe('secret');
    expect(modeOf(path)).toBe(0o600);
  });

  it('replaces a symlink at the path instead of writing where it points', () => {
    const dir = directory();
    const elsewhere = join(dir, 'elsewhere.txt');
    writeFileSync(elsewhere, 'untouched', { mode: 0o644 });
    const path = join(dir, 'snapshot.json');
    symlinkSync(elsewhere, path);
    writeOwnerOnlyFile(path, 'secret');
    expect(readFileSync(elsewhere, 'utf8')).toBe('untouched');
    expect(modeOf(elsewhere)).toBe(0o644);
    expect(lstatSync(path).isFile()).toBe(true);
    expect(modeOf(path)).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('secret');
  });

  it('fails on a path it cannot replace and leaves no partial file beside it', () => {
    const dir = directory();
    const path = join(dir, 'snapshot.json');
    mkdirSync(path);
    expect(() => {
      writeOwnerOnlyFile(path, 'secret');
    }).toThrow();
    expect(readdirSync(dir)).toEqual(['snapshot.json']);
  });
});
