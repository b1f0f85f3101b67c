// Issue 35 item 3: nothing a client sends may forge a server-sent event. A run id with CR, LF or CRLF was written
// raw into `/v1/events` (`?run=x%0A%0Aevent: decision%0Adata: …`); every value entering the stream is encoded, a
// run filter with control characters is refused, and run ids cannot hold them in the first place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startServer, type TestServer } from './helpers.js';
import { parseSse, readStream } from './sse-client.js';

const FORGED = JSON.stringify({ run_id: 'victim', escalation_id: 'victim:1', status: 'open' });

describe('forged server-sent events (issue 35 item 3)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ events: { batchMs: 0, heartbeatMs: 0 } });
  });
  afterAll(async () => s.close());

  for (const [name, br] of [
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ] as const) {
    it(`a run filter holding ${name} forges no event: it is refused as a problem document`, async () => {
      const run = `x${br}${br}event: escalation${br}data: ${FORGED}${br}${br}`;
      const res = await readStream(`${s.base}/v1/events?run=${encodeURIComponent(run)}`, { ms: 1500 });
      // Whatever the status, a standard parser must find no event in what was sent.
      expect(parseSse(res.text)).toEqual([]);
      expect(res.status).toBe(400);
      expect(res.type).toMatch(/^application\/problem\+json/);
      expect((JSON.parse(res.text) as { code: string }).code).toBe('INVALID_REQUEST');
    });

    it(`a route whose run id holds ${name} is refused (INVALID_REQUEST) and never reaches the stream`, async () => {
      const res = await post(s.base, '/v1/route', { run_id: `a${br}event: escalation${br}data: ${FORGED}`, flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: string; issues?: { path: (string | number)[] }[] };
      expect(body.code).toBe('INVALID_REQUEST');
      expect(body.issues?.map((i) => i.path)).toContainEqual(['run_id']);
    });
  }

  it('other control characters (ESC, NUL, C1) in a run id are refused too', async () => {
    for (const c of ['\u001b]0;title\u0007', '\u0000', '\u0085', '\u007f']) {
      const res = await post(s.base, '/v1/route', { run_id: `a${c}b`, flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' });
      expect([JSON.stringify(c), res.status]).toEqual([JSON.stringify(c), 400]);
    }
  });

  it('a real client reading the stream gets each event whole, with run ids of quotes, backslashes and U+2028 intact', async () => {
    const odd = 'q"\\\u2028\u2029<script>: id';
    const reading = readStream(`${s.base}/v1/events?run=${encodeURIComponent(odd)}`, { ms: 20_000, until: (t) => parseSse(t).length >= 2 });
    // Subscribed once the comment line arrived: give the server a moment by waiting for it through a second reader.
    await new Promise((r) => setTimeout(r, 200));
    for (const step of ['gate-receipts', 'gate-contracts']) {
      const res = await post(s.base, '/v1/route', { run_id: odd, flow: 'gate', step_completed: step, status: 'VERIFIED' });
      expect(res.status).toBe(200);
    }
    const { status, text } = await reading;
    expect(status).toBe(200);
    // The subscription comment quotes the run JSON-encoded: no raw line break from the client is in the stream.
    expect(text).toContain(`: subscribed to run ${JSON.stringify(odd)}`);
    const events = parseSse(text);
    expect(events.map((e) => e.type)).toEqual(['decision', 'decision']);
    for (const e of events) {
      expect(e.id).toMatch(/^[0-9a-f]{8}\.\d+$/);
      expect((JSON.parse(e.data) as { run_id: string }).run_id).toBe(odd);
    }
  });
});
