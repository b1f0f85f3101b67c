// Issue 35 item 6: DNS rebinding. A page on attacker.example whose name is rebound to 127.0.0.1 sends requests with
// `Host: attacker.example:PORT`. A loopback server without a token answers loopback names only (and --allow-host
// names); look-alikes are refused, and a refused request records nothing.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startServer, type TestServer } from './helpers.js';
import { startServe } from './serve-process.js';

/** A request with a Host header of our choosing (fetch may not set Host). */
function request(base: string, method: string, p: string, host: string | undefined, body?: unknown): Promise<{ status: number; type: string; json: { code?: string } }> {
  const url = new URL(base + p);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body !== undefined ? { 'content-type': 'application/json' } : {};
    if (host !== undefined) headers.host = host;
    const req = http.request({ host: url.hostname, port: url.port, path: p, method, headers, setHost: host === undefined ? false : undefined }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), json: text.startsWith('{') ? (JSON.parse(text) as { code?: string }) : {} }));
    });
    req.on('error', reject);
    req.end(body !== undefined ? JSON.stringify(body) : undefined);
  });
}

const ROUTE = { run_id: 'rebound-1', flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' };

describe('Host names (issue 35 item 6)', () => {
  let s: TestServer;
  let port: string;
  beforeAll(async () => {
    s = await startServer();
    port = new URL(s.base).port;
  });
  afterAll(async () => s.close());

  it('a loopback server without a token refuses foreign and look-alike Hosts on the API and the UI, and records nothing', async () => {
    const foreign = [
      `attacker.example:${port}`,
      'attacker.example',
      `localhost.attacker.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost.:${port}`,
      `127.0.0.1.:${port}`,
      `0x7f000001:${port}`,
      `2130706433:${port}`,
      `[::1].evil.example:${port}`,
      `127.0.0.1:${port}@evil.example`,
      `evil.example#@127.0.0.1:${port}`,
      `127.0.0.256:${port}`,
      `localhost:99999`,
    ];
    const through: string[] = [];
    for (const host of foreign) {
      for (const [method, p, body] of [
        ['GET', '/v1/runs', undefined],
        ['POST', '/v1/route', ROUTE],
        ['GET', '/', undefined],
        ['GET', '/v1/healthz', undefined],
      ] as const) {
        const res = await request(s.base, method, p, host, body);
        if (res.status !== 421 || res.json.code !== 'HOST_NOT_ALLOWED' || !res.type.startsWith('application/problem+json')) through.push(`${JSON.stringify(host)} ${method} ${p}: ${res.status}`);
      }
    }
    expect(through).toEqual([]);
    const runs = await request(s.base, 'GET', '/v1/runs', `127.0.0.1:${port}`);
    expect(runs.status).toBe(200);
    expect((runs.json as { total?: number }).total).toBe(0);
  });

  it('loopback names are answered: localhost, 127.0.0.0/8, [::1], in any case, with or without the port', async () => {
    for (const host of [`localhost:${port}`, `LocalHost:${port}`, 'localhost', `127.0.0.1:${port}`, `127.0.0.2:${port}`, `[::1]:${port}`, '[::1]']) {
      const res = await request(s.base, 'GET', '/v1/healthz', host);
      expect([host, res.status]).toEqual([host, 200]);
    }
  });

  it('--allow-host names are answered too; a server with a token answers any Host unless names are given', async () => {
    const named = await startServer({ allowedHosts: ['nav.example.com'] });
    const tokened = await startServer({ token: 'sekrit-token-123456' });
    try {
      const p = new URL(named.base).port;
      expect((await request(named.base, 'GET', '/v1/healthz', `nav.example.com:${p}`)).status).toBe(200);
      expect((await request(named.base, 'GET', '/v1/healthz', `NAV.example.com`)).status).toBe(200);
      expect((await request(named.base, 'GET', '/v1/healthz', `nav.example.com.evil.example:${p}`)).status).toBe(421);
      // A rebound page has no token: the token is the protection there, and a proxy's Host is not second-guessed.
      expect((await request(tokened.base, 'GET', '/v1/healthz', 'proxy.example')).status).toBe(200);
      expect((await request(tokened.base, 'GET', '/v1/runs', 'proxy.example')).status).toBe(401);
    } finally {
      await named.close();
      await tokened.close();
    }
  });

  it('serve --allow-host takes host names only; the real serve answers a named Host and refuses a foreign one', async () => {
    for (const bad of ['http://nav.example', 'nav.example:8080', 'nav example', '*.example']) {
      const r = runCli(['serve', '--port', '0', '--ledger', ':memory:', '--allow-host', bad]);
      expect([bad, r.code]).toEqual([bad, 2]);
      expect(r.stderr).toContain('--allow-host takes a host name');
    }
    const served = await startServe(['--ledger', ':memory:', '--allow-host', 'nav.example']);
    try {
      const p = new URL(served.base).port;
      expect((await request(served.base, 'GET', '/v1/healthz', `nav.example:${p}`)).status).toBe(200);
      expect((await request(served.base, 'GET', '/v1/healthz', `other.example:${p}`)).status).toBe(421);
    } finally {
      await served.stop();
    }
  });
});
