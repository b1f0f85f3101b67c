// Forensics (issue 23): reading real tools' reports. A pytest-shaped JUnit report of 50 MB (5 MB with --quick) read
// by `collectForensics` (a streaming scanner handing each <testcase> to fast-xml-parser) against fast-xml-parser on
// the whole document and against the I/O floor; a TAP stream through its own line reader and through tap-parser; ESLint JSON through JSON.parse
// (JSON formats are parsed whole) and through collectForensics; an entity bomb refused. Each run is a fresh process.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { table, type BenchSection } from './stats.js';

interface ChildResult {
  ms: number;
  peakRssMb: number;
  baseRssMb: number;
  result: unknown;
}

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'forensics-child.js');

function measureChild(mode: string, file: string): ChildResult {
  const r = spawnSync(process.execPath, [child, mode, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`forensics bench ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildResult;
}

/** A pytest-shaped JUnit report of about `bytes`: one test in ten fails with an escaped message and a traceback. */
async function writeJunit(file: string, bytes: number): Promise<number> {
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0">\n');
  let written = 0;
  let cases = 0;
  while (written < bytes) {
    const i = cases++;
    const s =
      i % 10 === 3
        ? `<testcase classname="tests.test_mod${i % 97}" name="test_case_${i}" time="0.001"><failure message="AssertionError: assert {&apos;a&apos;: ${i}} == {&apos;a&apos;: 0}&#10;  Differing items: &lt;dict&gt;">&gt;       assert result == expected\nE       AssertionError: assert {'a': ${i}} == {'a': 0}\nE         Differing items:\n\ntests/test_mod${i % 97}.py:${10 + (i % 300)}: AssertionError</failure></testcase>\n`
        : `<testcase classname="tests.test_mod${i % 97}" name="test_case_${i}" time="0.001" />\n`;
    written += s.length;
    await write(s);
  }
  await write('</testsuite></testsuites>\n');
  await new Promise((r) => out.end(r));
  return cases;
}

export async function benchForensics({ quick }: { quick: boolean }): Promise<BenchSection> {
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-bench-forensics-'));
  try {
    const mb = quick ? 5 : 50;
    const junit = path.join(dir, 'junit.xml');
    const cases = await writeJunit(junit, mb * 1024 * 1024);
    const size = statSync(junit).size / 2 ** 20;
    const collect = measureChild('collect', junit);
    const whole = measureChild('fxp-whole', junit);
    const floor = measureChild('scan-floor', junit);

    const tapN = quick ? 20_000 : 200_000;
    const tap = path.join(dir, 'node.tap');
    // node --test's shape: a `# Subtest:` header and a YAML block on every test point.
    writeFileSync(tap, 'TAP version 13\n' + Array.from({ length: tapN }, (_, i) => (i % 10 === 3 ? `# Subtest: t${i}\nnot ok ${i + 1} - t${i}\n  ---\n  duration_ms: 0.5\n  location: '/p/a.test.mjs:${i}:1'\n  failureType: 'testCodeFailure'\n  error: 'boom ${i}'\n  code: 'ERR_TEST_FAILURE'\n  name: 'Error'\n  stack: |-\n    at /p/a.test.mjs:${i}:9\n  ...\n` : `# Subtest: t${i}\nok ${i + 1} - t${i}\n  ---\n  duration_ms: 0.2\n  ...\n`)).join('') + `1..${tapN}\n`);
    const tapRun = measureChild('collect', tap);
    const tapParser = measureChild('tap-parser', tap);

    const eslintN = quick ? 2_000 : 20_000;
    const eslint = path.join(dir, 'eslint.json');
    writeFileSync(eslint, JSON.stringify(Array.from({ length: eslintN }, (_, i) => ({ filePath: `/p/src/f${i}.js`, messages: [{ ruleId: 'no-unused-vars', severity: 2, message: `'x${i}' is assigned a value but never used.`, line: i % 400, column: 5 }, { ruleId: 'no-console', severity: 1, message: 'Unexpected console statement.', line: 3, column: 1 }], errorCount: 1, warningCount: 1 }))));
    const eslintCollect = measureChild('collect', eslint);
    const eslintParse = measureChild('json-parse', eslint);

    const bomb = path.join(dir, 'bomb.xml');
    writeFileSync(bomb, `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('')}]><testsuite><testcase name="t"><failure message="&lol9;"/></testcase></testsuite>`);
    const t0 = performance.now();
    const { collectForensics } = await import('../src/forensics/index.js');
    const refused = await collectForensics({ files: [bomb] }).then(() => 'accepted', (e: { code?: string }) => e.code ?? 'error');
    const bombMs = performance.now() - t0;

    const mbps = (r: ChildResult, m: number) => (m / (r.ms / 1000)).toFixed(0);
    const row = (label: string, r: ChildResult, m: number) => [label, r.ms.toFixed(0), mbps(r, m), r.peakRssMb.toFixed(0), (r.peakRssMb - r.baseRssMb).toFixed(0)];
    const tapMb = statSync(tap).size / 2 ** 20;
    const eslintMb = statSync(eslint).size / 2 ** 20;
    const body = [
      `A pytest-shaped JUnit report of ${size.toFixed(1)} MB (${cases.toLocaleString('en')} test cases, one in ten failing with escaped messages), a TAP stream of ${tapN.toLocaleString('en')} tests (${tapMb.toFixed(1)} MB) and an ESLint JSON report (${eslintMb.toFixed(1)} MB), each read in a fresh process. "peak RSS" is the process's maxRSS; "over base" subtracts the RSS after loading the modules.`,
      '',
      table(
        ['reading', 'ms', 'MB/s', 'peak RSS MB', 'over base MB'],
        [
          row('JUnit: `collectForensics` (stream + fast-xml-parser per test case) — chosen', collect, size),
          row('JUnit: fast-xml-parser on the whole document (validate + parse)', whole, size),
          row('JUnit: floor (stream and count `<testcase`, no parsing)', floor, size),
          row('TAP: `collectForensics` (its own line reader, streamed) — chosen', tapRun, tapMb),
          row('TAP: tap-parser 18, streamed (asserts counted only)', tapParser, tapMb),
          row('ESLint JSON: `collectForensics` (JSON.parse whole)', eslintCollect, eslintMb),
          row('ESLint JSON: bare JSON.parse', eslintParse, eslintMb),
        ],
      ),
      '',
      `An entity bomb (billion laughs) is ${refused} in ${bombMs.toFixed(1)} ms (module load included): the DOCTYPE is refused before any parsing.`,
    ].join('\n');
    return {
      title: 'Forensics: reading reports',
      body,
      figures: {
        junit_mb: size,
        junit_collect_ms: collect.ms,
        junit_collect_peak_rss_mb: collect.peakRssMb,
        junit_collect_over_base_mb: Math.max(0, collect.peakRssMb - collect.baseRssMb),
        junit_fxp_whole_ms: whole.ms,
        junit_fxp_whole_peak_rss_mb: whole.peakRssMb,
        junit_floor_ms: floor.ms,
        tap_collect_ms: tapRun.ms,
        tap_collect_peak_rss_mb: tapRun.peakRssMb,
        tap_parser_ms: tapParser.ms,
        eslint_collect_ms: eslintCollect.ms,
        eslint_parse_ms: eslintParse.ms,
        bomb_refused_ms: bombMs,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
