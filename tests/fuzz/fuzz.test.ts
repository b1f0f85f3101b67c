import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { expectedAnswers, fuzzCoProcess, fuzzFlowFiles, fuzzRoute, sampleCoProcessLines } from '../../scripts/fuzz/surfaces.js';
import { BIN } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';

// A few hundred cases per surface here; `npm run fuzz` runs 10,000 per surface.
describe('fuzz (a few hundred cases per surface)', () => {
  it('route(): only decisions or typed errors; recorded routes unchanged; verify passes', async () => {
    const f = await fuzzRoute(300);
    expect(f.untyped + f.hangs).toBe(0);
    expect(f.outcomes.decision).toBeGreaterThan(30);
    expect((f.outcomes.INVALID_REQUEST ?? 0) + (f.outcomes.INVALID_FORENSICS ?? 0)).toBeGreaterThan(30);
    expect(f.outcomes.verify_ok).toBe(1);
  });

  it('co-process lines: every non-blank line answered once, in order, on the published schemas', async () => {
    const f = await fuzzCoProcess(300);
    expect(f.outcomes.decision).toBeGreaterThan(50);
    expect(f.outcomes.INVALID_JSON).toBeGreaterThan(20);
    expect(f.outcomes.INPUT_TOO_LARGE).toBeGreaterThan(5);
  });

  it('flow files: a FlowSet or a FlowValidationError, nothing else', async () => {
    const f = await fuzzFlowFiles(300);
    expect(f.outcomes.INVALID_FLOW).toBeGreaterThan(50);
  });

  it('a real co-process child answers 400 hostile lines one for one and is still serving afterwards', () => {
    const lines = sampleCoProcessLines(400, 7, 2048);
    const last = Buffer.from(JSON.stringify({ run_id: 'alive', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' }));
    const input = Buffer.concat([...lines, last].flatMap((l) => [l, Buffer.from('\n')]));
    const r = spawnSync(process.execPath, [BIN, 'route', '--no-ledger', '--max-bytes', '2048'], { cwd: ROOT, input, maxBuffer: 64 * 1024 * 1024 });
    const answers = r.stdout.toString().trim().split('\n');
    expect(answers).toHaveLength(expectedAnswers([...lines, last], 2048).length);
    expect(JSON.parse(answers[answers.length - 1]!)).toMatchObject({ decision: 'CONTINUE', run_id: 'alive' });
    expect(r.status).toBe(1);
  });
});
