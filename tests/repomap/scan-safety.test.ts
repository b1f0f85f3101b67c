import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NavkernelError } from '../../src/contracts/index.js';
import { indexRepo, renderFlightPlan, resolveInsideRoot, scanRepo } from '../../src/repomap/index.js';
import { copyShop, tmpDir } from './fixture.js';

describe('scanRepo safety', () => {
  it('skips .gitignored, binary, oversized files and symlinks that leave the root', () => {
    const repo = copyShop();
    const outside = tmpDir('nk-outside-');
    writeFileSync(path.join(outside, 'secret.ts'), 'export const KEY = "outside";\n');
    mkdirSync(path.join(repo, 'secret'));
    writeFileSync(path.join(repo, 'secret', 'keys.ts'), 'export const K = 1;\n');
    writeFileSync(path.join(repo, 'debug.log'), 'log line\n');
    writeFileSync(path.join(repo, 'logo.bin'), Buffer.from([1, 2, 0, 3, 4]));
    writeFileSync(path.join(repo, 'data.txt'), Buffer.from('a\u0000b'));
    writeFileSync(path.join(repo, 'big.ts'), 'x'.repeat(2048));
    symlinkSync(path.join(outside, 'secret.ts'), path.join(repo, 'src', 'leak.ts'));
    symlinkSync(outside, path.join(repo, 'outside-dir'));
    symlinkSync(path.join(repo, 'src', 'util', 'format.ts'), path.join(repo, 'src', 'format-link.ts'));
    const scan = scanRepo(repo, { maxFileBytes: 1024 });
    const files = scan.files.map((f) => f.path);
    const skipped = Object.fromEntries(scan.skipped.map((s) => [s.path, s.reason]));
    expect(skipped['secret/']).toBe('gitignored');
    expect(skipped['debug.log']).toBe('gitignored');
    expect(skipped['logo.bin']).toBe('binary');
    expect(skipped['data.txt']).toBe('binary');
    expect(skipped['big.ts']).toBe('oversized');
    expect(skipped['src/leak.ts']).toBe('symlink_outside_root');
    expect(skipped['outside-dir']).toBe('symlink_outside_root');
    expect(files).toContain('src/format-link.ts');
    expect(files).not.toContain('src/leak.ts');
    expect(files).toEqual([...files].sort());
  });

  it('refuses paths with .., absolute paths and symlinks resolving outside the root', () => {
    const repo = copyShop();
    const outside = tmpDir('nk-outside-');
    writeFileSync(path.join(outside, 'x.ts'), 'export {}\n');
    symlinkSync(path.join(outside, 'x.ts'), path.join(repo, 'link.ts'));
    for (const rel of ['../shop/README.md', '/etc/passwd', 'link.ts', 'src/../../x']) {
      expect(() => resolveInsideRoot(repo, rel)).toThrow(NavkernelError);
    }
    expect(resolveInsideRoot(repo, 'src/index.ts')).toMatch(/src\/index\.ts$/);
  });

  it('renders a file that fails to parse as plain text, with a note', async () => {
    const repo = tmpDir('nk-bad-');
    writeFileSync(path.join(repo, 'broken.ts'), ')))) (((( }}}} {{{{ not typescript at all ::::\n'.repeat(3));
    const r = await renderFlightPlan(repo, { budget: 1000, verbosity: [{ pattern: '**', level: 3 }] }, { cacheDir: false });
    expect(r.index.files[0]!.outline.parse_error).toBeDefined();
    expect(r.text).toContain('parse failed, shown as plain text');
    expect(r.text).toContain('not typescript at all');
  });
});

describe('indexRepo cache', () => {
  it('parses nothing on a second run over an unchanged repository, and only the changed file after an edit', async () => {
    const repo = copyShop();
    const cacheDir = tmpDir('nk-cache-');
    const cold = await indexRepo(repo, { cacheDir });
    expect(cold.stats.parsed).toBe(cold.files.length);
    const warm = await indexRepo(repo, { cacheDir });
    expect(warm.stats.parsed).toBe(0);
    expect(warm.stats.hashed).toBe(0);
    expect(warm.state_hash).toBe(cold.state_hash);
    expect(warm.files).toEqual(cold.files);
    writeFileSync(path.join(repo, 'src', 'util', 'format.ts'), 'export function formatCents(c: number): string {\n  return String(c);\n}\n');
    const edited = await indexRepo(repo, { cacheDir });
    expect(edited.stats.parsed).toBe(1);
    expect(edited.state_hash).not.toBe(cold.state_hash);
    expect(edited.files.find((f) => f.path === 'src/util/format.ts')!.outline.defs.map((d) => d.name)).toEqual(['formatCents']);
  });

  it('never writes its cache inside the repository by default', async () => {
    const repo = copyShop();
    const cacheDir = tmpDir('nk-cache-');
    await indexRepo(repo, { cacheDir });
    expect(scanRepo(repo).files.some((f) => f.path.includes('.cache'))).toBe(false);
  });
});
