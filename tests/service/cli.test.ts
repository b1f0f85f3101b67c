// The service's commands from the shell: refusals are one line and exit 2.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

describe('navkernel serve / report from the shell', () => {
  it('refuses a non-loopback address without --token, and a bad port', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-serve-cli-'));
    const bind = runCli(['serve', '--flows', CHARTERS, '--host', '0.0.0.0', '--port', '0', '--ledger', path.join(dir, 'l.sqlite')]);
    rmSync(dir, { recursive: true, force: true });
    expect(bind.code).toBe(2);
    expect(bind.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without --token/);
    const port = runCli(['serve', '--flows', CHARTERS, '--port', '99999']);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port must be a whole number from 0 to 65535/);
  });

  it('report names an unknown run and writes nothing', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-report-cli-'));
    try {
      expect(runCli(['demo', '-q', '--ledger', path.join(dir, 'l.sqlite'), '--run-prefix', 'r']).code).toBe(0);
      const r = runCli(['report', 'nope', '-o', path.join(dir, 'x.html'), '--ledger', path.join(dir, 'l.sqlite'), '--flows', CHARTERS]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/unknown run "nope"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
