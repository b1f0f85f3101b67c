// Commands tested as functions (issue 38 item 3): `main` called several times in one process takes the environment
// and working folder of each call from its context (`io.env`, `io.cwd`), not from the process, and keeps nothing
// from one call to the next (defaults, the configuration file, the exit code).
import { copyFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

describe('main in one process: each call reads its own context', () => {
  it('the --ledger default comes from the call\'s env, then its folder\'s config, and does not carry over', async () => {
    const dir = tempDir('nk-ctx-');
    const fromEnv = path.join(dir, 'from-env.sqlite');
    const withConfig = tempDir('nk-ctx-config-');
    const fromConfig = path.join(withConfig, 'from-config.sqlite');
    writeFileSync(path.join(withConfig, 'navkernel.config.json'), JSON.stringify({ ledger: 'from-config.sqlite' }));

    const a = await runCliHere(['runs', '--json'], { NAVKERNEL_LEDGER: fromEnv });
    expect(a.code).toBe(2);
    expect(a.stdout).toContain(fromEnv);

    const b = await runCliHere(['runs', '--json'], {}, withConfig);
    expect(b.code).toBe(2);
    expect(b.stdout).toContain(fromConfig);
    expect(b.stdout).not.toContain(fromEnv);

    // The environment wins over the configuration file, as documented for NAVKERNEL_LEDGER.
    const c = await runCliHere(['runs', '--json'], { NAVKERNEL_LEDGER: fromEnv }, withConfig);
    expect(c.stdout).toContain(fromEnv);

    const d = await runCliHere(['runs', '--json', '--ledger', path.join(dir, 'named.sqlite')]);
    expect(d.stdout).not.toContain(fromEnv);
    expect(d.stdout).not.toContain(fromConfig);
  });

  it('a configuration file edited between two calls is read again', async () => {
    const folder = tempDir('nk-ctx-edit-');
    const config = path.join(folder, 'navkernel.config.json');
    writeFileSync(config, JSON.stringify({ ledger: 'first.sqlite' }));
    expect((await runCliHere(['runs', '--json'], {}, folder)).stdout).toContain(path.join(folder, 'first.sqlite'));
    writeFileSync(config, JSON.stringify({ ledger: 'second.sqlite' }));
    expect((await runCliHere(['runs', '--json'], {}, folder)).stdout).toContain(path.join(folder, 'second.sqlite'));
  });

  it('the --flows default follows the call\'s NAVKERNEL_FLOWS, and an exit code does not outlive its call', async () => {
    const missing = path.join(tempDir('nk-ctx-flows-'), 'no-flows-here');
    const bad = await runCliHere(['flows', 'diagram', 'fixbug'], { NAVKERNEL_FLOWS: missing });
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toContain(missing);
    const good = await runCliHere(['--version']);
    expect(good.code).toBe(0);
    expect(good.stderr).toBe('');
  });
});

describe('a routing command prints to its context, not the process', () => {
  it('demo reports a flow file it skipped on the call\'s stderr', async () => {
    const flows = tempDir('nk-ctx-skip-');
    copyFileSync(path.join(ROOT, 'examples', 'custom-flow', 'release.yaml'), path.join(flows, 'release.yaml'));
    symlinkSync(path.join(flows, 'gone.yaml'), path.join(flows, 'dangling.yaml'));
    const r = await runCliHere(['demo', '-q', '--no-ledger', '--json', '--flows', flows]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`navkernel: warning: skipped ${path.join(flows, 'dangling.yaml')}`);
  });
});
