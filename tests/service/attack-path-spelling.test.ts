// Issue 35 item 1: authorisation is decided on the route the router matched, never on the raw URL. The router
// matches the percent-decoded path, so `/%761/runs` reaches `/v1/runs`; every operation of the OpenAPI document,
// spelled every other way, with and without a token, must be refused before its handler runs.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiErrorCode } from '../../src/contracts/index.js';
import { createPrincipalDirectory } from '../../src/service/index.js';
import { GATE_RUN, routeAll, startServer, type TestServer } from './helpers.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ROOT = `tok-root-${'r'.repeat(24)}`;
const bearer = { authorization: `Bearer ${ROOT}` };

/** `%XX` of one character, upper- or lower-case hex. */
const esc = (c: string, lower: boolean) => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? hex : hex.toUpperCase()}`;
};

/**
 * Spellings of `p` other than literal: the ones the review found (`/%761/`, `/%76%31/`, `/v%31/`), then each fixed
 * character of the path percent-encoded in turn (upper- and lower-case hex), a segment's slash encoded, and a
 * whole segment encoded. `fixed` marks where the path's fixed characters are (parameters are left alone).
 */
function spellings(p: string, fixed: boolean[]): string[] {
  const out = new Set<string>(['/%761/', '/%76%31/', '/v%31/', '/%56%31/'].map((head) => head + p.slice('/v1/'.length)));
  for (let i = 1; i < p.length; i++) {
    if (!fixed[i]) continue;
    for (const lower of [false, true]) out.add(p.slice(0, i) + esc(p[i]!, lower) + p.slice(i + 1));
  }
  const segs = p.split('/');
  for (let k = 1; k < segs.length; k++) {
    const whole = segs.map((s, j) => (j === k && fixed[segs.slice(0, j).join('/').length + 1] ? [...s].map((c) => esc(c, false)).join('') : s)).join('/');
    out.add(whole);
  }
  out.delete(p);
  return [...out];
}

describe('path spellings (issue 35 item 1)', () => {
  let dir: string;
  let s: TestServer;
  let escalation: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nk-spell-'));
    writeFileSync(path.join(dir, 'tokens.yaml'), `principals:\n  - name: root\n    scopes: [route, read, resolve, admin]\n    token_sha256: ${sha(ROOT)}\n`);
    s = await startServer({ principals: createPrincipalDirectory({ tokensFile: path.join(dir, 'tokens.yaml') }) });
    const decisions = await routeAll(s.base, GATE_RUN, bearer);
    escalation = decisions.at(-1)!.escalation_id as string;
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bodyFor = (p: string) =>
    p.endsWith('/route')
      ? JSON.stringify({ run_id: 'spelled-1', flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' })
      : p.endsWith('/resolve')
        ? JSON.stringify({ decision: 'TERMINATE', by: 'mallory', reason: 'forged through a spelling' })
        : '{}';

  it('every operation, spelled any other way, is refused with and without a token; nothing is recorded', async () => {
    const doc = (await (await fetch(`${s.base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const reached: string[] = [];
    const notProblem: string[] = [];
    let tried = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      // The concrete path, and which of its characters are fixed (not a parameter's).
      let concrete = '';
      const fixed: boolean[] = [];
      for (const part of template.split(/(\{[^}]+\})/)) {
        const isParam = part.startsWith('{');
        const text = isParam ? (template.includes('escalations') ? escalation : 'gate-1') : part;
        concrete += text;
        for (let i = 0; i < text.length; i++) fixed.push(!isParam);
      }
      for (const method of Object.keys(ops)) {
        for (const spelled of spellings(concrete, fixed)) {
          for (const headers of [{}, bearer]) {
            const res = await fetch(s.base + spelled, {
              method: method.toUpperCase(),
              headers: { ...headers, 'content-type': 'application/json' },
              ...(method === 'post' ? { body: bodyFor(template) } : {}),
              signal: AbortSignal.timeout(30_000),
            });
            tried++;
            const type = res.headers.get('content-type') ?? '';
            const text = await (type.includes('event-stream') ? (res.body?.cancel(), Promise.resolve('')) : res.text());
            if (res.status < 400) reached.push(`${method.toUpperCase()} ${spelled} ${'authorization' in headers ? 'with' : 'without'} a token: ${res.status}`);
            else if (!type.startsWith('application/problem+json') || !ApiErrorCode.safeParse((JSON.parse(text) as { code?: unknown }).code).success) notProblem.push(`${spelled}: ${res.status} ${type}`);
            else if ('authorization' in headers && res.status !== 404) {
              // With the right scope, a spelling that routes is refused as such, never served.
              const body = JSON.parse(text) as { code: string };
              if (body.code !== 'NON_CANONICAL_PATH') reached.push(`${method.toUpperCase()} ${spelled} with a token: ${res.status} ${body.code}`);
            }
          }
        }
      }
    }
    expect(reached).toEqual([]);
    expect(notProblem).toEqual([]);
    expect(tried).toBeGreaterThan(400);
    // Nothing was routed or resolved through a spelling.
    const runs = (await (await fetch(`${s.base}/v1/runs`, { headers: bearer })).json()) as { runs: { run_id: string }[] };
    expect(runs.runs.map((r) => r.run_id)).toEqual(['gate-1']);
    const run = (await (await fetch(`${s.base}/v1/runs/gate-1`, { headers: bearer })).json()) as { escalations: { status: string }[] };
    expect(run.escalations.map((e) => e.status)).toEqual(['open']);
  });

  it('a fixed set: the spellings the review found, without a token, are 400 NON_CANONICAL_PATH and record nothing', async () => {
    for (const [method, p] of [
      ['GET', '/%761/runs'],
      ['GET', '/%76%31/runs'],
      ['GET', '/v%31/runs'],
      ['GET', '/v1/r%75ns'],
      ['GET', '/v1/%72uns/gate-1/audit'],
      ['POST', '/%761/route'],
      ['POST', `/%761/escalations/${escalation}/resolve`],
      ['GET', '/%761/verify'],
      ['GET', '/%761/metrics'],
      ['GET', '/%761/healthz'],
    ] as const) {
      const res = await fetch(s.base + p, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: bodyFor(p) } : {}) });
      const body = (await res.json()) as { code: string; instance?: string };
      expect([p, res.status, body.code]).toEqual([p, 400, 'NON_CANONICAL_PATH']);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    // The literal spelling still needs the token, and with it works; a percent-encoded run id is a parameter, not a spelling.
    expect((await fetch(`${s.base}/v1/runs`)).status).toBe(401);
    expect((await fetch(`${s.base}/v1/runs/gate%2D1`, { headers: bearer })).status).toBe(200);
    const run = (await (await fetch(`${s.base}/v1/runs/gate-1`, { headers: bearer })).json()) as { escalations: { status: string }[] };
    expect(run.escalations.map((e) => e.status)).toEqual(['open']);
  });
});
