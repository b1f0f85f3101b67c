// Reports are untrusted input: DTDs and entities refused before parsing, truncated and malformed reports a typed
// error naming the file and the problem, unknown formats named, huge reports summarised within caps.
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPS, collectForensics, ReportError } from '../../src/forensics/index.js';

let dir: string;
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const failure = async (p: Promise<unknown>) => {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(ReportError);
  return e as ReportError;
};

const BOMB = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 ${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('\n ')}
]>
<testsuite name="s"><testcase name="t"><failure message="&lol9;">&lol9;</failure></testcase></testsuite>
`;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-hostile-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hostile reports', () => {
  it('an entity bomb is refused before parsing: nothing expanded, a typed error naming the file and line', async () => {
    const p = file('bomb.xml', BOMB);
    const e = await failure(collectForensics({ files: [p] }));
    expect(e).toMatchObject({ code: 'INVALID_REPORT', problem: 'doctype', file: p });
    expect(e.message).toMatch(/bomb\.xml: line 2: a DOCTYPE or ENTITY declaration: refused/);
    expect(e.message).not.toContain('lollol');
  });

  it('a DOCTYPE after many test cases (past the first chunk) and one inside a test case are refused too', async () => {
    const cases = '<testcase name="ok"/>\n'.repeat(10_000);
    const late = await failure(collectForensics({ files: [file('late.xml', `<testsuite>${cases}<!DOCTYPE x [<!ENTITY a "b">]></testsuite>`)] }));
    expect(late.problem).toBe('doctype');
    const inside = await failure(collectForensics({ files: [file('inside.xml', '<testsuite><testcase name="t"><!ENTITY a "b"></testcase></testsuite>')], as: 'junit' }));
    expect(inside.problem).toBe('doctype');
  });

  it('an undeclared entity reference stays text: only the five predefined ones and character references decode', async () => {
    const f = await collectForensics({ files: [file('refs.xml', '<testsuite><testcase name="t"><failure message="a &amp; b &#10;&#x41; &lol9; &nbsp;"/></testcase></testsuite>')] });
    expect(f.tests!.failures![0]!.message).toBe('a & b');
  });

  it('a truncated JUnit report (a real shape cut in the middle) is `truncated`, naming the line', async () => {
    const whole = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="2">\n<testcase classname="a" name="t1"/>\n<testcase classname="a" name="t2"><failure message="boom">trace\n`;
    const e = await failure(collectForensics({ files: [file('cut.xml', whole)] }));
    expect(e.problem).toBe('truncated');
    expect(e.message).toMatch(/cut\.xml: line 3: the document ends inside a <testcase>/);
    const noClose = await failure(collectForensics({ files: [file('noclose.xml', '<testsuites><testsuite><testcase name="a"/></testsuite>')] }));
    expect(noClose.message).toMatch(/ends before <\/testsuites>/);
  });

  it('malformed XML, TAP without a plan, broken JSON and a SARIF of another version are typed errors', async () => {
    expect((await failure(collectForensics({ files: [file('junk.xml', '<testsuite><testcase name="a"><failure></testcase></testsuite>')] }))).problem).toBe('malformed');
    expect((await failure(collectForensics({ files: [file('root.xml', '<html><body/></html>')], as: 'junit' }))).message).toMatch(/root element is <html>/);
    expect((await failure(collectForensics({ files: [file('cut.tap', 'TAP version 13\nok 1 - a\nnot ok 2 - b\n')] }))).problem).toBe('truncated');
    expect((await failure(collectForensics({ files: [file('short.tap', 'TAP version 13\n1..5\nok 1 - a\n')] }))).message).toMatch(/the plan says 5 tests, the report has 1/);
    expect((await failure(collectForensics({ files: [file('cut.json', '[{"filePath":"a.js","messages":[{"ruleId":"x"')] }))).problem).toBe('truncated');
    expect((await failure(collectForensics({ files: [file('bad.json', '[{"filePath":"a.js", oops}]')] }))).problem).toBe('malformed');
    expect((await failure(collectForensics({ files: [file('old.sarif', '{"version":"1.0.0","runs":[]}')], as: 'sarif' }))).message).toMatch(/SARIF version 1\.0\.0 is not supported/);
  });

  it('an unknown format, an empty file, a missing file and a folder are named as such', async () => {
    const unknown = await failure(collectForensics({ files: [file('notes.txt', 'just some words\nabout a build\n')] }));
    expect(unknown).toMatchObject({ problem: 'unknown_format' });
    expect(unknown.message).toMatch(/notes\.txt: not a format navkernel reads \(junit, tap, sarif/);
    expect((await failure(collectForensics({ files: [file('empty.txt', '')] }))).problem).toBe('empty');
    expect((await failure(collectForensics({ files: [path.join(dir, 'nope.xml')] }))).problem).toBe('not_found');
    expect((await failure(collectForensics({ files: [dir] }))).problem).toBe('not_a_file');
    // Empty output of a tool that prints nothing when clean is fine when its format is named.
    expect(await collectForensics({ files: [path.join(dir, 'empty.txt')], as: 'tsc' })).toMatchObject({ types: { errors: 0 } });
  });

  it('a report over the size limit is refused unread; JSON formats have their own smaller limit', async () => {
    const p = file('big.tap', 'TAP version 13\n' + 'ok 1\n'.repeat(1000) + '1..1000\n');
    expect((await failure(collectForensics({ files: [p] }, { maxReportBytes: 1000 }))).problem).toBe('too_large');
    const j = file('big.json', JSON.stringify([{ filePath: 'a.js', messages: [] }]));
    expect((await failure(collectForensics({ files: [j] }, { maxJsonReportBytes: 10 }))).message).toMatch(/parsed whole/);
  });

  it('100,000 failures become a bounded summary with totals (streamed, one test case held at a time)', async () => {
    const p = path.join(dir, 'huge.xml');
    const out = createWriteStream(p);
    out.write('<?xml version="1.0"?><testsuites><testsuite name="big">\n');
    for (let i = 0; i < 100_000; i++) out.write(`<testcase classname="pkg.mod${i % 70}" name="test_${i}"><failure message="AssertionError: value ${i} &gt; limit" type="AssertionError">long trace ${'x'.repeat(200)}</failure></testcase>\n`);
    for (let i = 0; i < 5_000; i++) out.write(`<testcase classname="ok" name="p${i}"/>\n`);
    out.write('</testsuite></testsuites>\n');
    await new Promise((resolve) => out.end(resolve));
    const f = await collectForensics({ files: [p] });
    expect(f.tests).toMatchObject({ passed: 5_000, failed: 100_000, errored: 0, failures_omitted: 100_000 - CAPS.failures });
    expect(f.tests!.failures).toHaveLength(CAPS.failures);
    expect(f.tests!.failures![19]).toMatchObject({ name: 'pkg.mod19.test_19', message: 'AssertionError: value 19 > limit' });
    expect(JSON.stringify(f).length).toBeLessThan(10_000);
  });

  it('a suite-level CDATA of 20 MB is skipped, not held; a 2 MB tag is refused', async () => {
    const p = path.join(dir, 'cdata.xml');
    const out = createWriteStream(p);
    out.write('<testsuite><system-out><![CDATA[');
    for (let i = 0; i < 20; i++) out.write('log line <not a tag> & more\n'.repeat(37_450));
    out.write(']]></system-out><testcase name="after"/></testsuite>');
    await new Promise((resolve) => out.end(resolve));
    expect((await collectForensics({ files: [p] })).tests).toMatchObject({ passed: 1 });
    const tag = await failure(collectForensics({ files: [file('tag.xml', `<testsuite><properties a="${'x'.repeat(2 * 1024 * 1024)}"/></testsuite>`)] }));
    expect(tag.message).toMatch(/a tag longer than 1048576 characters/);
  });

  it('secrets in a report are redacted from the forensics', async () => {
    const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const f = await collectForensics({ files: [file('secret.xml', `<testsuite><testcase name="t"><failure message="auth failed for ${token}"/></testcase></testsuite>`)] });
    expect(JSON.stringify(f)).not.toContain(token);
    expect(f.tests!.failures![0]!.message).toContain('[REDACTED]');
  });
});
