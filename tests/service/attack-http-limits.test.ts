// Issue 35 item 7 (HTTP): run ids of 101-200 characters (the schema allows 200) are readable and resolvable over
// HTTP; what the router or the HTTP parser refuses (an over-long segment, an over-long head, a malformed escape,
// bytes that are not HTTP) is a problem document with a stable code; the UI carries a Content-Security-Policy,
// frame protection and nosniff.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiErrorCode, ERROR_CODES } from '../../src/contracts/index.js';
import { post, routeAll, startServer, type TestServer } from './helpers.js';

/** Sends raw bytes on a fresh connection and returns the whole answer. */
function raw(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

const problemOf = (answer: string) => {
  const [head, body] = [answer.slice(0, answer.indexOf('\r\n\r\n')), answer.slice(answer.indexOf('\r\n\r\n') + 4)];
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), type: /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '', body: JSON.parse(body) as { code: string; status: number } };
};

describe('HTTP limits and headers (issue 35 item 7)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => s.close());

  for (const [name, id] of [
    ['101 characters', `r${'x'.repeat(100)}`],
    ['200 characters', 'y'.repeat(200)],
    ['200 characters of 4-byte UTF-8 (2,400 percent-encoded)', '😀'.repeat(100)],
  ] as const) {
    it(`a run id of ${name} routes, reads, audits, replays and resolves over HTTP`, async () => {
      expect([...id].length <= 200 && id.length <= 200).toBe(true);
      const decisions = await routeAll(s.base, [
        { run_id: id, flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' },
        { run_id: id, flow: 'gate', step_completed: 'gate-contracts', status: 'VERIFIED' },
        { run_id: id, flow: 'gate', step_completed: 'gate-security', status: 'VERIFIED' },
        { run_id: id, flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' },
      ]);
      const enc = encodeURIComponent(id);
      const run = await fetch(`${s.base}/v1/runs/${enc}`);
      expect(run.status).toBe(200);
      expect(((await run.json()) as { run: { run_id: string } }).run.run_id).toBe(id);
      expect((await fetch(`${s.base}/v1/runs/${enc}/audit`)).status).toBe(200);
      expect((await post(s.base, `/v1/runs/${enc}/replay`, {})).status).toBe(200);
      const esc = decisions.at(-1)!.escalation_id as string;
      expect(esc.length).toBeGreaterThan(100);
      const resolved = await post(s.base, `/v1/escalations/${encodeURIComponent(esc)}/resolve`, { decision: 'TERMINATE', by: 'tester', reason: 'long ids work' });
      expect(resolved.status).toBe(200);
    });
  }

  it('an over-long path segment is 414 URI_TOO_LONG, an over-long head 431 HEADERS_TOO_LARGE, both problem documents', async () => {
    const long = await fetch(`${s.base}/v1/runs/${'z'.repeat(5000)}`);
    expect(long.status).toBe(414);
    expect(long.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await long.json()) as { code: string }).code).toBe('URI_TOO_LONG');
    const head = problemOf(await raw(s.base, `GET /v1/runs/${'z'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
    expect([head.status, head.body.code, head.body.status]).toEqual([431, 'HEADERS_TOO_LARGE', 431]);
    expect(head.type).toMatch(/^application\/problem\+json/);
  });

  it('a malformed escape and bytes that are not HTTP get problem documents with stable codes', async () => {
    const bad = await fetch(`${s.base}/v1/runs/%zz`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('INVALID_REQUEST');
    for (const bytes of ['NOT HTTP AT ALL\r\n\r\n', 'GET /v1/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX: \u0001\r\n\r\n', 'GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n']) {
      const p = problemOf(await raw(s.base, bytes));
      expect([JSON.stringify(bytes), p.status, p.body.code]).toEqual([JSON.stringify(bytes), 400, 'INVALID_REQUEST']);
      expect(ApiErrorCode.safeParse(p.body.code).success).toBe(true);
    }
    // The codes added for these answers are in the one stable list, with the statuses served.
    expect(ERROR_CODES.URI_TOO_LONG.http).toBe(414);
    expect(ERROR_CODES.HEADERS_TOO_LARGE.http).toBe(431);
  });

  it('the UI is served with a Content-Security-Policy, frame protection, nosniff and no referrer', async () => {
    for (const p of ['/', '/index.html', '/app.js', '/style.css']) {
      const res = await fetch(s.base + p);
      expect([p, res.status]).toEqual([p, 200]);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      await res.arrayBuffer();
    }
  });
});
