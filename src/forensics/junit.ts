import type { XMLParser } from 'fast-xml-parser';
import { ReportError } from './report-error.js';
import type { ForensicsCollector, TestFailure } from './summary.js';

/** The largest single `<testcase>` held at once; the report as a whole is streamed. */
export const MAX_TESTCASE_CHARS = 8 * 1024 * 1024;
/** The largest single tag (its attributes): a tag is rescanned as text arrives, so it is held to less. */
const MAX_TAG_CHARS = 1024 * 1024;

let parser: XMLParser | undefined;
let validateXml: ((xml: string) => true | { err: { msg: string; line: number } }) | undefined;

/**
 * fast-xml-parser for one `<testcase>` fragment: attributes kept, the five predefined entities and character
 * references decoded (`htmlEntities: {}` turns on numeric references without HTML's named ones), nothing
 * else expanded. A DOCTYPE never reaches it: {@link readJunit} refuses any `<!` declaration first.
 */
async function testcaseParser(): Promise<XMLParser> {
  if (parser) return parser;
  const { XMLParser, XMLValidator } = await import('fast-xml-parser');
  validateXml = (xml) => XMLValidator.validate(xml) as true | { err: { msg: string; line: number } };
  return (parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    processEntities: true,
    htmlEntities: {} as unknown as boolean,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    isArray: (name) => name === 'failure' || name === 'error' || name === 'skipped',
  }));
}

/** The index of the `>` ending the tag that starts at `from`, quotes respected; -1 when the text ends first. */
function tagEnd(buf: string, from: number): number {
  let quote = '';
  for (let i = from; i < buf.length; i++) {
    const c = buf[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return -1;
}

const lineOf = (buf: string, at: number, base: number) => base + countNewlines(buf, at);
function countNewlines(s: string, end: number): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0 && i < end; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * A JUnit XML report (pytest, vitest, jest, Maven Surefire, gotestsum), streamed: a small scanner walks the
 * document (prolog, comments, CDATA, suites) and hands each `<testcase>…</testcase>` to fast-xml-parser, so only
 * one test case is ever held. Any `<!DOCTYPE` / `<!ENTITY` is refused before anything is parsed; a document
 * that ends before its root element closes is `truncated`.
 */
export async function readJunit(file: string, chunks: AsyncIterable<string>, sink: ForensicsCollector): Promise<void> {
  const xml = await testcaseParser();
  let buf = '';
  let line = 1; // line number of buf[0]
  let root: string | undefined;
  let rootClosed = false;
  const fail = (problem: 'doctype' | 'malformed' | 'truncated', at: number, what: string): never => {
    throw new ReportError(file, problem, `line ${lineOf(buf, at, line)}: ${what}`);
  };
  /** Outside test cases, the end of a comment / CDATA / processing instruction still to come: its text is dropped. */
  let skipUntil: string | undefined;
  /** Consumes what it can of buf; returns the index up to which buf was consumed. */
  const scan = (final: boolean): number => {
    let pos = 0;
    /** Not complete yet: a comment / CDATA / PI is skipped to its end; a tag waits for more text, up to MAX_TAG_CHARS. */
    const wait = (lt: number, close: string | undefined, what: string): number => {
      if (final) return fail('truncated', lt, `the document ends inside ${what}`);
      if (close) {
        // Nothing in it is needed: drop what came so far and look only for its end.
        skipUntil = close;
        return buf.length - (close.length - 1);
      }
      if (buf.length - lt <= MAX_TAG_CHARS) return lt;
      return fail('malformed', lt, `${what} longer than ${MAX_TAG_CHARS} characters`);
    };
    for (;;) {
      if (skipUntil) {
        const end = buf.indexOf(skipUntil, pos);
        if (end < 0) return final ? fail('truncated', pos, 'the document ends inside a comment or CDATA section') : Math.max(pos, buf.length - (skipUntil.length - 1));
        pos = end + skipUntil.length;
        skipUntil = undefined;
      }
      const lt = buf.indexOf('<', pos);
      if (lt < 0) return buf.length;
      if (buf.length - lt < 12 && !final) return lt;
      if (rootClosed && buf.slice(lt, lt + 4) !== '<!--' && !buf.startsWith('<?', lt)) fail('malformed', lt, `content after the root element </${root}>`);
      if (buf.startsWith('<?', lt)) {
        const end = buf.indexOf('?>', lt + 2);
        if (end < 0) return wait(lt, '?>', 'a processing instruction');
        pos = end + 2;
      } else if (buf.startsWith('<!--', lt)) {
        const end = buf.indexOf('-->', lt + 4);
        if (end < 0) return wait(lt, '-->', 'a comment');
        pos = end + 3;
      } else if (buf.startsWith('<![CDATA[', lt)) {
        const end = buf.indexOf(']]>', lt + 9);
        if (end < 0) return wait(lt, ']]>', 'a CDATA section');
        pos = end + 3;
      } else if (buf.startsWith('<!', lt)) {
        fail('doctype', lt, 'a DOCTYPE or ENTITY declaration: refused (reports may not declare entities; nothing was expanded)');
      } else if (buf.startsWith('</', lt)) {
        const end = buf.indexOf('>', lt);
        if (end < 0) return wait(lt, undefined, 'a closing tag');
        if (buf.slice(lt + 2, end).trim() === root) rootClosed = true;
        pos = end + 1;
      } else if (/^<testcase[\s/>]/.test(buf.slice(lt, lt + 10))) {
        if (!root) fail('malformed', lt, 'a <testcase> outside any <testsuite>');
        const startEnd = tagEnd(buf, lt + 9);
        if (startEnd < 0) return wait(lt, undefined, 'a <testcase> tag');
        let end: number;
        if (buf[startEnd - 1] === '/') {
          // `<testcase …/>`: a test that passed, nothing to parse (most of a large report).
          sink.testPassed();
          pos = startEnd + 1;
          continue;
        }
        else {
          end = -1;
          let i = startEnd + 1;
          while (end < 0) {
            const next = buf.indexOf('<', i);
            if (next < 0) break;
            if (buf.startsWith('</testcase', next)) {
              const close = buf.indexOf('>', next);
              if (close < 0) break;
              end = close + 1;
            } else if (buf.startsWith('<![CDATA[', next)) {
              const c = buf.indexOf(']]>', next + 9);
              if (c < 0) break;
              i = c + 3;
            } else if (buf.startsWith('<!--', next)) {
              const c = buf.indexOf('-->', next + 4);
              if (c < 0) break;
              i = c + 3;
            } else if (buf.startsWith('<!', next)) {
              fail('doctype', next, 'a DOCTYPE or ENTITY declaration inside a <testcase>: refused');
            } else i = next + 1;
          }
          if (end < 0) {
            if (final) fail('truncated', lt, 'the document ends inside a <testcase>');
            if (buf.length - lt > MAX_TESTCASE_CHARS) fail('malformed', lt, `a <testcase> larger than ${MAX_TESTCASE_CHARS} characters`);
            return lt;
          }
        }
        testcase(buf.slice(lt, end), lt);
        pos = end;
      } else {
        const end = tagEnd(buf, lt + 1);
        if (end < 0) return wait(lt, undefined, 'a tag');
        const name = /^<([A-Za-z_][\w.:-]*)/.exec(buf.slice(lt, Math.min(end, lt + 200)))?.[1];
        if (!name) fail('malformed', lt, 'not a tag');
        if (!root) {
          if (name !== 'testsuites' && name !== 'testsuite') fail('malformed', lt, `the root element is <${name}>, not <testsuites> or <testsuite>`);
          root = name;
          if (buf[end - 1] === '/') rootClosed = true;
        }
        pos = end + 1;
      }
    }
  };
  const testcase = (fragment: string, at: number) => {
    // What the test case holds, told without parsing (CDATA and comments set aside: only they may hold a raw `<`).
    const bare = fragment.includes('<![CDATA[') || fragment.includes('<!--') ? fragment.replace(/<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->/g, '') : fragment;
    const kind = /<error[\s/>]/.test(bare) ? 'error' : /<failure[\s/>]/.test(bare) ? 'failure' : undefined;
    if (!kind) return /<skipped[\s/>]/.test(bare) ? sink.testSkipped() : sink.testPassed();
    if (!sink.wantsFailureDetail()) {
      // Past the cap a failure is only counted and looked at for its signature: its message and `E` lines suffice.
      const m = MESSAGE_ATTR[kind].exec(bare);
      const message = decodeXml(m?.[1] ?? m?.[2] ?? '');
      const eLines = [...decodeXml(bare.slice(0, 16_384)).matchAll(/^E\s+(.+)$/gm)].slice(0, 4).map((x) => x[1]!.trim());
      const type = EXCEPTION.exec(message)?.[1] ?? eLines.map((e) => EXCEPTION.exec(e)?.[1]).find(Boolean);
      return sink.testFailed({ kind, message, ...(type ? { type } : {}), detail: eLines.join('\n') });
    }
    let tc: Record<string, unknown>;
    // The parser forgives unclosed tags; the validator does not.
    const valid = validateXml!(fragment);
    if (valid !== true) return fail('malformed', at, `a <testcase> that is not well-formed XML: ${valid.err.msg}`);
    try {
      tc = (xml.parse(fragment) as { testcase?: unknown }).testcase as Record<string, unknown>;
    } catch (e) {
      return fail('malformed', at, `a <testcase> that is not well-formed XML: ${(e as Error).message.split('\n')[0]}`);
    }
    if (typeof tc !== 'object' || tc === null) tc = {};
    const name = str(tc.name);
    const classname = str(tc.classname);
    const fullName = classname && name ? `${classname}.${name}` : (name ?? classname);
    const problems = [...list(tc.error).map((e) => ['error', e] as const), ...list(tc.failure).map((e) => ['failure', e] as const)];
    const [k, p] = problems[0] ?? [kind, {}];
    sink.testFailed(failureOf(k, p, fullName, str(tc.file), num(tc.line)));
  };
  for await (const chunk of chunks) {
    buf += chunk;
    const used = scan(false);
    line += countNewlines(buf, used);
    buf = buf.slice(used);
  }
  scan(true);
  if (!root) throw new ReportError(file, buf.trim() || line > 1 ? 'malformed' : 'empty', 'no <testsuites> or <testsuite> element');
  if (!rootClosed) throw new ReportError(file, 'truncated', `the document ends before </${root}> (a truncated report?)`);
  sink.tests.seen = true;
}

const MESSAGE_ATTR = { error: /<error\b[^>]*?\bmessage=(?:"([^"]*)"|'([^']*)')/, failure: /<failure\b[^>]*?\bmessage=(?:"([^"]*)"|'([^']*)')/ };

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** The five predefined entities and character references decoded (what fast-xml-parser does with `htmlEntities: {}`). */
function decodeXml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (_, e: string) => {
    if (e[0] !== '#') return XML_ENTITIES[e]!;
    const cp = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : _;
  });
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

const EXCEPTION = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Failure|Interrupt))\b:?/;

/** One `<failure>` / `<error>`: its message (or the exception line pytest puts in the text), type, file and line. */
function failureOf(kind: 'failure' | 'error', p: unknown, name: string | undefined, file: string | undefined, line: number | undefined): TestFailure {
  const attrs = typeof p === 'object' && p !== null ? (p as Record<string, unknown>) : {};
  const text = (typeof p === 'string' ? p : str(attrs['#text']) ?? '').slice(0, 16_384);
  let message = str(attrs.message);
  const eLines = [...text.matchAll(/^E\s+(.+)$/gm)].map((m) => m[1]!.trim());
  const exceptionLine = eLines.find((e) => EXCEPTION.test(e));
  if (!message || (!EXCEPTION.test(message) && exceptionLine && !message.includes(exceptionLine))) message = message && exceptionLine ? `${message}: ${exceptionLine}` : (message ?? exceptionLine ?? text.trim().split('\n')[0]);
  const type = str(attrs.type) ?? EXCEPTION.exec(message ?? '')?.[1] ?? (exceptionLine ? EXCEPTION.exec(exceptionLine)?.[1] : undefined);
  // pytest ends a traceback with `path.py:LINE: ExceptionName` (or `: in <module>`): the last such line is where.
  let where: RegExpExecArray | undefined;
  for (const m of text.matchAll(/^([^\s:()]+\.[A-Za-z]+):(\d+):/gm)) where = m;
  return {
    kind,
    ...(name ? { name } : {}),
    ...(file ?? where?.[1] ? { file: file ?? where![1]! } : {}),
    ...(line ?? where?.[2] ? { line: line ?? Number(where![2]) } : {}),
    ...(type ? { type } : {}),
    ...(message ? { message } : {}),
    detail: eLines.slice(0, 4).join('\n'),
  };
}
