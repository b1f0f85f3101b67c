// One forensics bench measurement in a fresh process (bench/forensics.ts): reads a report one way and prints
// {ms, peakRssMb, baseRssMb, result}. Peak RSS is process.resourceUsage().maxRSS; the base is the RSS after imports.
import { createReadStream, readFileSync } from 'node:fs';
import { collectForensics } from '../src/forensics/index.js';

const [mode, file] = process.argv.slice(2) as [string, string];
const { XMLParser, XMLValidator } = await import('fast-xml-parser');
const { Parser } = await import('tap-parser');
const baseRssMb = process.memoryUsage().rss / 1e6;
const t0 = performance.now();
let result: unknown;
if (mode === 'collect') {
  const f = await collectForensics({ files: [file] });
  result = { tests: f.tests ? { passed: f.tests.passed, failed: f.tests.failed, errored: f.tests.errored } : undefined, lint: f.lint?.errors, bytes: JSON.stringify(f).length };
} else if (mode === 'fxp-whole') {
  // The alternative: fast-xml-parser on the whole document (validated first, as the stream path validates each test case).
  const text = readFileSync(file, 'utf8');
  const ok = XMLValidator.validate(text);
  if (ok !== true) throw new Error('invalid');
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', htmlEntities: {} as unknown as boolean, isArray: (n) => n === 'testcase' || n === 'testsuite' || n === 'failure' }).parse(text) as { testsuites: { testsuite: { testcase: { failure?: unknown }[] }[] } };
  const cases = doc.testsuites.testsuite.flatMap((s) => s.testcase);
  result = { cases: cases.length, failed: cases.filter((c) => c.failure).length };
} else if (mode === 'scan-floor') {
  // The floor: stream the file and count `<testcase` (no parsing at all).
  let n = 0;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 }) as AsyncIterable<string>) for (let i = chunk.indexOf('<testcase'); i >= 0; i = chunk.indexOf('<testcase', i + 1)) n++;
  result = { cases: n };
} else if (mode === 'tap-parser') {
  // The alternative: tap-parser 18, streamed, counting asserts at every depth.
  let asserts = 0;
  const parser = new Parser({ passes: false } as never);
  const attach = (p: InstanceType<typeof Parser>) => {
    p.on('assert', () => void asserts++);
    p.on('child', (c: InstanceType<typeof Parser>) => attach(c));
  };
  attach(parser);
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 }) as AsyncIterable<string>) parser.write(chunk);
  await new Promise<void>((resolve) => {
    parser.once('complete', () => resolve());
    parser.end();
  });
  result = { asserts };
} else if (mode === 'json-parse') {
  result = { entries: (JSON.parse(readFileSync(file, 'utf8')) as unknown[]).length };
} else throw new Error(`unknown mode ${mode}`);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, peakRssMb: process.resourceUsage().maxRSS / 1024, baseRssMb, result }) + '\n');
