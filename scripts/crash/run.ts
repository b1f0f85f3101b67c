// `npm run crash [-- --kills N] [--seed S] [--scenario A|B] [--json] [--keep]`: SIGKILL at random moments against
// real SQLite ledger files, N kills per scenario (default 200). A: one writer routing several runs, killed and
// restarted. B: two writers on the same run, one or both killed. Then, per scenario: every acknowledged decision
// (a complete "ACK" line a child printed) is in the ledger with the same decision, no missing or duplicate seq,
// verify passes (after its decisions.jsonl repair, counted), replay of every run gives no divergence. Prints a
// table (or JSON with --json); exits 1 when anything was lost or any check failed. C (scripts/crash/failover.ts):
// PostgreSQL failover, --failovers N rounds (default 3): kernels route through a primary + synchronous standby, the
// primary is killed mid-load and the standby promoted; nothing acknowledged may be lost.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadFlows } from '../../src/kernel/index.js';
import { packageRoot, sampleChartersDir } from '../../src/package-root.js';
import { childScript, ownDist } from './harness.js';
import { scenarioA, scenarioB, type CrashFigures } from './scenarios.js';
import { scenarioC } from './failover.js';
import { hammerCharters } from './hammer-flows.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const kills = Number(arg('--kills') ?? 200);
const seed = Number(arg('--seed') ?? Date.now() % 2 ** 31);
const only = arg('--scenario')?.toUpperCase();
const json = argv.includes('--json');
const keep = argv.includes('--keep');
const failovers = Number(arg('--failovers') ?? 3);
if (!Number.isInteger(kills) || kills < 1 || !Number.isInteger(seed) || !Number.isInteger(failovers) || failovers < 0 || (only !== undefined && only !== 'A' && only !== 'B' && only !== 'C')) {
  console.error('usage: npm run crash -- [--kills N] [--seed S] [--scenario A|B|C] [--failovers N] [--json] [--keep]');
  process.exit(2);
}

const log = (s: string) => (json ? process.stderr : process.stdout).write(s + '\n');
const flows = await loadFlows(sampleChartersDir());
const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-crash-'));
log(`navkernel crash: ${kills} SIGKILLs per scenario, seed ${seed}, ledgers in ${dir}`);

const results: CrashFigures[] = [];
for (const [name, scenario] of [['A', scenarioA], ['B', scenarioB]] as const) {
  if (only && only !== name) continue;
  const scenarioDir = mkdtempSync(path.join(dir, `${name}-`));
  // B routes one run far past the shipped build flow's bounds on purpose: its flows are bounded to fit (hammer-flows.ts).
  const charters = name === 'B' ? hammerCharters(path.join(scenarioDir, 'charters')) : undefined;
  const figures = await scenario({
    file: path.join(scenarioDir, 'ledger.sqlite'),
    dir: scenarioDir,
    child: childScript(ownDist()),
    cwd: packageRoot(),
    flows: charters ? await loadFlows(charters) : flows,
    ...(charters ? { env: { ...process.env, NAVKERNEL_TEST_CHARTERS: charters } } : {}),
    kills,
    seed,
    onKill: (n) => {
      if (n % 25 === 0) log(`  ${name}: ${n}/${kills} kills`);
    },
  });
  results.push(figures);
}
if ((!only || only === 'C') && failovers > 0) {
  log(`  C: ${failovers} PostgreSQL failover(s)`);
  const c = await scenarioC({ child: childScript(ownDist()), cwd: packageRoot(), rounds: failovers });
  log(`  C: ${c.acknowledged} routes acknowledged across ${c.kills} failover(s); ${c.ackedDuringFailover} answered between a kill and its promotion (committed before the kill); longest kill to promotion ${c.maxPromoteMs} ms, promotion to next acknowledged route ${c.maxResumeMs} ms`);
  results.push(c);
}
if (!keep) rmSync(dir, { recursive: true, force: true });

if (json) {
  process.stdout.write(JSON.stringify({ seed, kills, ok: results.every((r) => r.ok), scenarios: results }, null, 2) + '\n');
} else {
  const head = ['scenario', 'kills', 'children', 'runs', 'routes', 'acknowledged', 'lost', 'seq missing/dup', 'request dup', '≠ reference', 'verify issues', 'jsonl lines repaired', 'replay divergences', 'wall'];
  const body = results.map((r) => [
    r.scenario,
    String(r.kills),
    String(r.children),
    String(r.runs),
    String(r.routes),
    String(r.acknowledged),
    String(r.lost),
    `${r.seqMissing}/${r.seqDuplicate}`,
    String(r.requestDuplicate),
    r.referenceMismatches === null ? '-' : String(r.referenceMismatches),
    String(r.verifyIssues),
    `${r.jsonlLinesRepaired}${r.tornLinesRemoved ? ` (+${r.tornLinesRemoved} torn)` : ''}`,
    String(r.replayDivergences),
    `${(r.wallMs / 1000).toFixed(1)} s`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  console.log('');
  console.log(line(head));
  console.log('|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|');
  for (const row of body) console.log(line(row));
  for (const r of results) {
    const strict = Object.entries(r.strictIssueKinds).map(([k, v]) => `${k} ${v}`).join(', ');
    console.log(`${r.scenario}: ${r.killsBeforeFirstAck} of the kills came before the child's first ACK; verify without repair found ${strict || 'nothing'}; child failures ${r.childFailures}; ${r.ok ? 'OK' : 'FAILED'}`);
    for (const e of r.errors.slice(0, 10)) console.log(`  ${e}`);
  }
}
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
