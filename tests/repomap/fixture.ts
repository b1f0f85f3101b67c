import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/temp.js';

/** The committed fixture repository (real code in six languages plus Markdown). */
export const SHOP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/repos/shop');

/** A fresh temporary directory, removed after the test file. */
export function tmpDir(prefix = 'nk-'): string {
  return tempDir(prefix);
}

/** A writable copy of the shop fixture. */
export function copyShop(): string {
  const dir = path.join(tmpDir('nk-shop-'), 'shop');
  cpSync(SHOP, dir, { recursive: true });
  return dir;
}

/** Temporary directories made through `tmp`, all removed by `cleanup` (call it from afterAll). */
export function scratch(): { tmp(prefix: string): string; cleanup(): void } {
  const made: string[] = [];
  return {
    tmp(prefix) {
      const d = tmpDir(prefix);
      made.push(d);
      return d;
    },
    cleanup() {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
