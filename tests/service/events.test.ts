// GET /v1/events over real HTTP: decisions, escalations and resolutions as they are committed; a client that drops
// and resumes with Last-Event-ID misses nothing and gets nothing twice while routes are committed concurrently.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RouteRequest } from '../../src/contracts/index.js';
import { EventHub, type EventSink } from '../../src/service/events.js';
import { GATE_RUN, post, routeAll, startServer, type TestServer } from './helpers.js';
import { longRunFlows } from '../support/long-run-charters.js';

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** An SSE client over fetch: collects events until aborted. */
function follow(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const events: SseEvent[] = [];
  let comments = 0;
  let status = 0;
  const done = (async () => {
    const res = await fetch(url, { headers, signal: controller.signal });
    status = res.status;
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const e: SseEvent = {};
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) comments++;
            const m = /^(id|event|data): (.*)$/.exec(line);
            if (m) e[m[1] as keyof SseEvent] = m[2];
          }
          if (e.event) events.push(e);
        }
      }
    } catch (e) {
      if ((e as Error).name !== 'AbortError') throw e;
    }
  })().catch((e: Error) => {
    if (e.name !== 'AbortError') throw e;
  });
  return {
    events,
    get comments() {
      return comments;
    },
    get status() {
      return status;
    },
    async until(pred: () => boolean, ms = 10_000) {
      const end = Date.now() + ms;
      while (!pred() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      return pred();
    },
    async stop() {
      controller.abort();
      await done;
    },
  };
}

// The runner goes round build-step-1, -2 and -3 whatever the kernel says: it says it restarts from each
// (docs/run-states.md), so every request is routed and recorded.
const run = (id: string, n: number): RouteRequest[] =>
  Array.from({ length: n }, (_, i) => ({
    run_id: id,
    flow: 'build',
    step_completed: `build-step-${(i % 3) + 1}`,
    status: 'VERIFIED',
    forensics: { tests: { passed: i, failed: 0 } },
    restart: { reason: 'the test goes round three steps' },
  }));

describe('GET /v1/events', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('streams every committed decision; a client that reconnects with Last-Event-ID misses nothing and gets nothing twice', async () => {
    // 30 routes a run round three build steps: past the shipped build flow's visit caps, so its bounds are raised.
    s = await startServer({ flows: await longRunFlows() });
    const base = s.base;
    const first = follow(`${base}/v1/events`);
    await first.until(() => first.status === 200);
    // Four runs routed concurrently, one request at a time per run, while the client drops and comes back.
    const runs = ['a', 'b', 'c', 'd'];
    const routing = Promise.all(runs.map((r) => routeAll(base, run(r, 30))));
    expect(await first.until(() => first.events.length >= 20)).toBe(true);
    await first.stop();
    const last = first.events[first.events.length - 1]!.id!;
    const second = follow(`${base}/v1/events`, { 'last-event-id': last });
    await routing;
    expect(await second.until(() => first.events.length + second.events.length >= 120)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    await second.stop();
    const got = [...first.events, ...second.events].filter((e) => e.event === 'decision').map((e) => JSON.parse(e.data!) as { run_id: string; seq: number });
    const keys = got.map((d) => `${d.run_id}:${d.seq}`);
    expect(new Set(keys).size).toBe(keys.length);
    const db = new Database(s.file, { readonly: true });
    const committed = (db.prepare('SELECT run_id, seq FROM routes ORDER BY run_id, seq').all() as { run_id: string; seq: number }[]).map((r) => `${r.run_id}:${r.seq}`);
    db.close();
    expect([...keys].sort()).toEqual([...committed].sort());
    // Within a run, in commit order; ids increase across the whole stream.
    for (const r of runs) expect(got.filter((d) => d.run_id === r).map((d) => d.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const ids = [...first.events, ...second.events].map((e) => Number(e.id!.split('.')[1]));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  it('follows one run, shows an escalation and its resolution, and says reset for an id it cannot resume', async () => {
    s = await startServer();
    const base = s.base;
    const gate = follow(`${base}/v1/events?run=gate-1`);
    await gate.until(() => gate.status === 200);
    await routeAll(base, run('other', 2));
    await routeAll(base, GATE_RUN);
    expect(await gate.until(() => gate.events.some((e) => e.event === 'escalation'))).toBe(true);
    const esc = JSON.parse(gate.events.find((e) => e.event === 'escalation')!.data!) as { escalation_id: string; status: string };
    expect(esc.status).toBe('open');
    const ok = await post(base, `/v1/escalations/${esc.escalation_id}/resolve`, { decision: 'TERMINATE', by: 'ann', reason: 'stop' });
    expect(ok.status).toBe(200);
    expect(await gate.until(() => gate.events.some((e) => e.event === 'resolution'))).toBe(true);
    await gate.stop();
    expect(gate.events.filter((e) => e.event === 'decision').map((e) => (JSON.parse(e.data!) as { run_id: string }).run_id)).toEqual(['gate-1', 'gate-1', 'gate-1', 'gate-1']);
    const stale = follow(`${base}/v1/events`, { 'last-event-id': 'deadbeef.3' });
    expect(await stale.until(() => stale.events.length > 0)).toBe(true);
    await stale.stop();
    expect(stale.events[0]!.event).toBe('reset');
  });

  it('caps subscribers (503 TOO_MANY_SUBSCRIBERS, the others keep streaming) and sends heartbeats', async () => {
    s = await startServer({ events: { maxSubscribers: 2, heartbeatMs: 50 } });
    const a = follow(`${s.base}/v1/events`);
    const b = follow(`${s.base}/v1/events`);
    await a.until(() => a.status === 200 && b.status === 200);
    const c = await fetch(`${s.base}/v1/events`);
    expect(c.status).toBe(503);
    expect(((await c.json()) as { code: string }).code).toBe('TOO_MANY_SUBSCRIBERS');
    expect(await a.until(() => a.comments >= 3)).toBe(true);
    await routeAll(s.base, run('x', 1));
    expect(await b.until(() => b.events.length === 1)).toBe(true);
    await a.stop();
    await b.stop();
  });
});

describe('EventHub', () => {
  it('drops a subscriber that falls behind instead of buffering for it, and keeps serving the others', () => {
    const hub = new EventHub({ maxPendingBytes: 100, heartbeatMs: 0 });
    const sink = (stuck: boolean) => {
      const out: string[] = [];
      let destroyed = false;
      const s: EventSink & { out: string[]; destroyed: () => boolean } = {
        out,
        destroyed: () => destroyed,
        write: (c: string) => (out.push(c), !stuck),
        end: () => {},
        destroy: () => void (destroyed = true),
        get writableLength() {
          return stuck ? out.join('').length : 0;
        },
      };
      return s;
    };
    const slow = sink(true);
    const fast = sink(false);
    expect(hub.subscribe(slow).ok && hub.subscribe(fast).ok).toBe(true);
    // One flush per batch (here: per publish); the slow one is dropped once too much waits for it.
    for (let i = 0; i < 10; i++) {
      hub.publish('decision', 'r', { i, pad: 'x'.repeat(40) });
      hub.flush();
    }
    expect(slow.destroyed()).toBe(true);
    expect(hub.dropped).toBe(1);
    expect(hub.size).toBe(1);
    expect(fast.out.filter((f) => f.startsWith('id:'))).toHaveLength(10);
    hub.close();
  });

  it('resumes from its ring only while the events are held', () => {
    const hub = new EventHub({ capacity: 3, heartbeatMs: 0 });
    const first: string[] = [];
    hub.subscribe({ write: (c) => (first.push(c), true), end: () => {}, destroy: () => {}, writableLength: 0 });
    for (let i = 1; i <= 5; i++) hub.publish('decision', 'r', { i });
    hub.flush();
    // The five events of one batch reach the subscriber in one write.
    expect(first.slice(1)).toHaveLength(1);
    expect(first[1]!.match(/^id: /gm)).toHaveLength(5);
    const frames = (last: string) => {
      const out: string[] = [];
      hub.subscribe({ write: (c) => (out.push(c), true), end: () => {}, destroy: () => {}, writableLength: 0 }, { lastEventId: last });
      return out.filter((f) => f.startsWith('id:') || f.startsWith('event: reset')).map((f) => (f.startsWith('event: reset') ? 'reset' : f.split('\n')[0]!.split('.')[1]));
    };
    expect(frames(`${hub.epoch}.2`)).toEqual(['3', '4', '5']);
    expect(frames(`${hub.epoch}.4`)).toEqual(['5']);
    expect(frames(`${hub.epoch}.1`)).toEqual(['reset']);
    expect(frames(`${hub.epoch}.9`)).toEqual(['reset']);
    hub.close();
  });
});

describe('EventHub cost', () => {
  const sink = () => {
    const out: string[] = [];
    return { out, write: (c: string) => (out.push(c), true), end: () => {}, destroy: () => {}, writableLength: 0 };
  };

  it('keeps nothing and builds nothing while nobody can receive an event, and cannot resume into that time', () => {
    const hub = new EventHub({ heartbeatMs: 0 });
    expect(hub.listening).toBe(false);
    let serialised = 0;
    const payload = (i: number) => ({
      toJSON: () => {
        serialised++;
        return { i };
      },
    });
    for (let i = 0; i < 5; i++) hub.publish('decision', 'r', payload(i));
    hub.flush();
    expect(serialised).toBe(0);
    // An id from that time was never sent to anyone: it cannot be resumed from (reset), rather than resumed with a gap.
    const late = sink();
    hub.subscribe(late, { lastEventId: `${hub.epoch}.3` });
    expect(late.out.some((c) => c.startsWith('event: reset'))).toBe(true);
    hub.close();
  });

  it('with 100 subscribers, serialises each event once and writes once per subscriber per batch', async () => {
    const hub = new EventHub({ heartbeatMs: 0 });
    const subs = Array.from({ length: 100 }, () => sink());
    for (const s of subs) expect(hub.subscribe(s).ok).toBe(true);
    let serialised = 0;
    for (let i = 0; i < 10; i++) {
      hub.publish('decision', `r${i}`, {
        toJSON: () => {
          serialised++;
          return { i };
        },
      });
    }
    // Nothing written yet: the events go out together when the batch time (10 ms by default) has passed.
    expect(subs[0]!.out).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(serialised).toBe(10);
    for (const s of subs) {
      expect(s.out).toHaveLength(2);
      expect(s.out[1]!.match(/^id: /gm)).toHaveLength(10);
    }
    // Once a subscriber has had ids, events are kept for a client that comes back with one.
    expect(hub.listening).toBe(true);
    hub.close();
  });

  it('a subscriber that joins with events pending gets each once: from its Last-Event-ID, or only later ones', () => {
    const hub = new EventHub({ heartbeatMs: 0 });
    const early = sink();
    hub.subscribe(early);
    hub.publish('decision', 'r', { n: 1 });
    hub.flush();
    const lastSeen = /^id: (\S+)/m.exec(early.out[1]!)![1]!;
    hub.publish('decision', 'r', { n: 2 });
    hub.publish('decision', 'r', { n: 3 });
    // Joins while 2 and 3 are pending: resuming after 1 sends 2 and 3 now, and the flush does not repeat them.
    const resumed = sink();
    hub.subscribe(resumed, { lastEventId: lastSeen });
    const fresh = sink();
    hub.subscribe(fresh);
    hub.flush();
    hub.publish('decision', 'r', { n: 4 });
    hub.flush();
    const ns = (s: { out: string[] }) => [...s.out.join('').matchAll(/data: \{"n":(\d)\}/g)].map((m) => Number(m[1]));
    expect(ns(early)).toEqual([1, 2, 3, 4]);
    expect(ns(resumed)).toEqual([2, 3, 4]);
    expect(ns(fresh)).toEqual([4]);
    hub.close();
  });
});
