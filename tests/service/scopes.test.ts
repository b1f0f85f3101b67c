// serve for a team: principals with scopes from a tokens file, checked on every endpoint of the OpenAPI document,
// resolutions attributed to the authenticated principal inside the hashed record, and the tokens file reloaded.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipalDirectory, newToken, parseTokensFile, SCOPES, type Scope } from '../../src/service/index.js';
import { BIN, runCli, runCliHere } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';
import { GATE_RUN, post, routeAll, startServer, type TestServer } from './helpers.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

/** One principal per scope, plus one with two. Tokens are made here; the file holds only their hashes. */
const PEOPLE: Record<string, Scope[]> = { runner: ['route'], auditor: ['read'], alice: ['resolve', 'read'], ops: ['admin'] };
const TOKENS: Record<string, string> = Object.fromEntries(Object.keys(PEOPLE).map((n) => [n, `tok-${n}-${'x'.repeat(20)}`]));
const tokensYaml = (names = Object.keys(PEOPLE)) =>
  `principals:\n${names.map((n) => `  - name: ${n}\n    scopes: [${PEOPLE[n]!.join(', ')}]\n    token_sha256: ${sha(TOKENS[n]!)}\n`).join('')}`;
const bearer = (name: string) => ({ authorization: `Bearer ${TOKENS[name]}` });

describe('principals and scopes (serve --tokens)', () => {
  let dir: string;
  let s: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nk-scopes-'));
    writeFileSync(path.join(dir, 'tokens.yaml'), tokensYaml());
    s = await startServer({ principals: createPrincipalDirectory({ tokensFile: path.join(dir, 'tokens.yaml') }) });
    await routeAll(s.base, GATE_RUN, bearer('runner'));
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each operation of the OpenAPI document is allowed to the principals holding its scope and refused (403, naming it) to the others', async () => {
    const doc = (await (await fetch(`${s.base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { 'x-navkernel-scope'?: string }>> };
    const table: string[] = [];
    let checked = 0;
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const scope = op['x-navkernel-scope'];
        expect(scope, `${method} ${p} has no x-navkernel-scope`).toBeDefined();
        // Path parameters name nothing that exists: the scope check comes first, so a refusal is still 403.
        const url = s.base + p.replace(/\{[^}]+\}/g, 'nope');
        for (const [name, scopes] of Object.entries(PEOPLE)) {
          const res = await fetch(url, { method: method.toUpperCase(), headers: { ...bearer(name), 'content-type': 'application/json' }, ...(method === 'post' ? { body: '{}' } : {}) });
          const allowed = scope === 'public' || scopes.includes(scope as Scope);
          if (allowed) {
            if (res.status === 401 || res.status === 403) table.push(`${method} ${p} refused ${name} (${res.status})`);
          } else {
            const body = (await res.json()) as { code?: string; detail?: string };
            if (res.status !== 403 || body.code !== 'FORBIDDEN' || !body.detail?.includes(`the ${scope} scope`)) table.push(`${method} ${p} let ${name} through (${res.status})`);
          }
          checked++;
        }
        // No token at all: 401 everywhere but the public endpoints.
        const anon = await fetch(url, { method: method.toUpperCase(), headers: { 'content-type': 'application/json' }, ...(method === 'post' ? { body: '{}' } : {}) });
        if ((scope === 'public') === (anon.status === 401)) table.push(`${method} ${p} without a token: ${anon.status}`);
      }
    }
    expect(table).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(13 * 4);
  });

  it('a wrong token is 401; whoami tells the UI who is signed in and what they may do', async () => {
    const wrong = await fetch(`${s.base}/v1/runs`, { headers: { authorization: 'Bearer not-a-token' } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { code: string }).code).toBe('UNAUTHORIZED');
    const me = (await (await fetch(`${s.base}/v1/whoami`, { headers: bearer('alice') })).json()) as Record<string, unknown>;
    expect(me).toEqual({ auth_required: true, principal: 'alice', authenticated: true, scopes: ['read', 'resolve'] });
    const nobody = (await (await fetch(`${s.base}/v1/whoami`)).json()) as Record<string, unknown>;
    expect(nobody).toEqual({ auth_required: true, principal: null, authenticated: false, scopes: [] });
  });

  it('the inbox lists open escalations across runs; a resolution records the authenticated principal, and verify covers it', async () => {
    const inbox = (await (await fetch(`${s.base}/v1/escalations`, { headers: bearer('alice') })).json()) as { escalations: { escalation_id: string; run_id: string }[] };
    expect(inbox.escalations.map((e) => e.run_id)).toEqual(['gate-1']);
    const id = inbox.escalations[0]!.escalation_id;
    // A name that disagrees with the token is refused, not recorded beside it.
    const liar = await post(s.base, `/v1/escalations/${id}/resolve`, { decision: 'TERMINATE', by: 'bob', reason: 'ship it' }, bearer('alice'));
    expect(liar.status).toBe(422);
    expect(((await liar.json()) as { detail: string }).detail).toMatch(/authenticated as alice/);
    const ok = await post(s.base, `/v1/escalations/${id}/resolve`, { decision: 'TERMINATE', reason: 'ship it' }, bearer('alice'));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { resolution: unknown }).resolution).toMatchObject({ by: 'alice', authenticated: true, via: 'http' });
    expect(((await (await fetch(`${s.base}/v1/escalations`, { headers: bearer('alice') })).json()) as { escalations: unknown[] }).escalations).toEqual([]);
    const audit = await runCliHere(['audit', 'gate-1', '--ledger', s.file, '--json']);
    expect(JSON.stringify(JSON.parse(audit.stdout))).toContain('"by":"alice"');
    expect((await runCliHere(['verify', '--ledger', s.file])).code).toBe(0);
    // Claiming someone else resolved it, in the database, breaks the chain.
    const db = new Database(s.file);
    const row = db.prepare('SELECT escalation_id, resolution FROM escalations WHERE escalation_id = ?').get(id) as { resolution: string };
    db.prepare('UPDATE escalations SET resolution = ?, resolved_by = ? WHERE escalation_id = ?').run(row.resolution.replace('"alice"', '"mallory"'), 'mallory', id);
    db.close();
    const verify = await runCliHere(['verify', '--ledger', s.file]);
    expect(verify.code).toBe(1);
    expect(verify.stdout + verify.stderr).toMatch(new RegExp(id));
  });
});

describe('the tokens file', () => {
  it('is refused with the file and the entry named when it holds a token, an unknown scope, a bad hash or a duplicate', () => {
    const cases: [string, RegExp][] = [
      ['principals:\n  - { name: a, scopes: [read], token: abc }', /\$\.principals\[0\]: unknown key "token" \(store the token's SHA-256/],
      [`principals:\n  - { name: a, scopes: [write], token_sha256: ${sha('x')} }`, /\$\.principals\[0\]\.scopes: unknown scope "write" \(known: route, read, resolve, admin\)/],
      ['principals:\n  - { name: a, scopes: [read], token_sha256: 12 }', /token_sha256: expected 64 hex digits/],
      [`principals:\n  - { name: a, scopes: [read], token_sha256: ${sha('x')} }\n  - { name: b, scopes: [read], token_sha256: ${sha('x')} }`, /\$\.principals\[1\]\.token_sha256: the same token/],
      ['people: []', /top-level "principals:" list/],
    ];
    for (const [text, message] of cases) expect(() => parseTokensFile(text, 'tokens.yaml')).toThrow(message);
    expect(parseTokensFile(JSON.stringify({ principals: [{ name: 'a', scopes: ['read'], token_sha256: sha('x') }] }), 't.json').map((p) => p.name)).toEqual(['a']);
  });

  it('navkernel token new prints a fresh token once and an entry holding only its SHA-256', () => {
    const r = runCli(['token', 'new', 'ci-runner', '--scope', 'route', '--scope', 'read', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { token, entry } = JSON.parse(r.stdout) as { token: string; entry: { name: string; scopes: string[]; token_sha256: string } };
    expect(entry).toEqual({ name: 'ci-runner', scopes: ['route', 'read'], token_sha256: sha(token) });
    expect(newToken('x', ['read']).token).not.toBe(newToken('x', ['read']).token);
    const text = runCli(['token', 'new', 'ci-runner', '--scope', 'route']);
    expect(text.stdout).toMatch(/token_sha256: [0-9a-f]{64}/);
    const bad = runCli(['token', 'new', 'x', '--scope', 'write']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown scope "write"/);
    expect(SCOPES).toEqual(['route', 'read', 'resolve', 'admin']);
  });

  it('accepted tokens are remembered only until the next reload: a removed token is refused at once, changed scopes apply at once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-cache-'));
    const file = path.join(dir, 'tokens.yaml');
    writeFileSync(file, tokensYaml(['runner', 'auditor']));
    const principals = createPrincipalDirectory({ tokensFile: file });
    const s = await startServer({ principals });
    try {
      const status = async (name: string) => (await fetch(`${s.base}/v1/runs`, { headers: bearer(name) })).status;
      // Twice each: the second answer comes from the remembered token.
      for (let i = 0; i < 2; i++) expect([await status('auditor'), await status('runner')]).toEqual([200, 403]);
      expect(principals.authenticate(TOKENS.auditor!)).toBe(principals.authenticate(TOKENS.auditor!));
      // The auditor's token leaves the file, the runner gains read: the very next requests see both.
      writeFileSync(file, `principals:\n  - name: runner\n    scopes: [route, read]\n    token_sha256: ${sha(TOKENS.runner!)}\n`);
      principals.reload();
      expect(await status('auditor')).toBe(401);
      expect(await status('runner')).toBe(200);
      expect(principals.authenticate(TOKENS.auditor!)).toBeUndefined();
      // A reload that fails keeps what was loaded, remembered tokens included.
      writeFileSync(file, 'principals: [ {');
      expect(() => principals.reload()).toThrow(/tokens\.yaml/);
      expect(await status('runner')).toBe(200);
      expect(await status('auditor')).toBe(401);
      // Wrong tokens are never remembered: they keep failing, and a token's prefix or extension is not it.
      for (const t of ['tok-nobody', TOKENS.runner!.slice(0, -1), `${TOKENS.runner!}x`]) {
        expect((await fetch(`${s.base}/v1/runs`, { headers: { authorization: `Bearer ${t}` } })).status).toBe(401);
      }
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve reloads it when it changes (a new principal gets in, a broken file keeps the old ones) and never logs a token', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-reload-'));
    const file = path.join(dir, 'tokens.yaml');
    writeFileSync(file, tokensYaml(['runner']));
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--tokens', file, '--flows', CHARTERS, '--ledger', path.join(dir, 'l.sqlite')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 20_000);
        const poll = setInterval(() => {
          const m = /listening on (http:\/\/\S+) /.exec(err);
          if (m) {
            clearInterval(poll);
            clearTimeout(t);
            resolve(m[1]!);
          }
        }, 50);
      });
      const status = async (name: string) => (await fetch(`${base}/v1/runs`, { headers: bearer(name) })).status;
      const eventually = async (name: string, want: number) => {
        for (let i = 0; i < 100 && (await status(name)) !== want; i++) await new Promise((r) => setTimeout(r, 100));
        return status(name);
      };
      expect(await status('auditor')).toBe(401);
      writeFileSync(file, tokensYaml(['runner', 'auditor']));
      expect(await eventually('auditor', 200)).toBe(200);
      writeFileSync(file, 'principals: [ {');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await status('auditor')).toBe(200);
      expect(err).toMatch(/kept the principals already loaded/);
      writeFileSync(file, tokensYaml(['runner']));
      child.kill('SIGHUP');
      expect(await eventually('auditor', 401)).toBe(401);
      for (const t of Object.values(TOKENS)) expect(err).not.toContain(t);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('navkernel resolve records the OS user (or --by) as an unauthenticated author', async () => {
    const s = await startServer();
    try {
      await routeAll(s.base, GATE_RUN);
      const inbox = (await (await fetch(`${s.base}/v1/escalations`)).json()) as { escalations: { escalation_id: string }[] };
      const id = inbox.escalations[0]!.escalation_id;
      const r = await runCliHere(['resolve', id, '--decision', 'TERMINATE', '--reason', 'done', '--ledger', s.file, '--flows', CHARTERS, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { resolution: unknown }).resolution).toMatchObject({ by: userInfo().username, authenticated: false, via: 'cli' });
    } finally {
      await s.close();
    }
  });
});

