import { cpSync } from 'node:fs';
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
