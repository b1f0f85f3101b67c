// `navkernel mcp`'s navigate on a repository it has not indexed: a client that passes a progressToken (the MCP SDK's
// real Client with `onprogress`, over a real stdio child process) is told first how much there is to read and about
// how long it will take, then the files done, then that indexing is done; a call on the unchanged repository reports
// nothing and answers the same.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';

const FLOWS = path.join(ROOT, 'examples', 'custom-flow');
const SHOP = path.join(ROOT, 'tests', 'fixtures', 'repos', 'shop');

describe('navkernel mcp: progress while indexing a new repository', () => {
  let dir: string;
  let repo: string;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nk-mcp-progress-'));
    repo = path.join(dir, 'shop');
    cpSync(SHOP, repo, { recursive: true });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--flows', FLOWS, '--ledger', path.join(dir, 'ledger.sqlite'), '--repo', repo, '--cache-dir', path.join(dir, 'cache')],
      cwd: ROOT,
      stderr: 'pipe',
    });
    client = new Client({ name: 'navkernel-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const navigate = async (reports?: Progress[]) =>
    (await client.callTool({ name: 'navigate', arguments: { repo, task: 'fix the discount calculation in checkout', max_files: 5 } }, undefined, reports ? { onprogress: (p) => reports.push(p) } : undefined)) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
    };

  it('says how much it will read and about how long it takes, streams the files done, and says when it is done', async () => {
    const reports: Progress[] = [];
    const first = await navigate(reports);
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent!.exit).toBe('EXIT_PASS');
    const files = countFiles(repo);
    expect(reports.length).toBeGreaterThanOrEqual(2);
    const [plan, ...rest] = reports;
    expect(plan!.progress).toBe(0);
    expect(plan!.total).toBe(files);
    expect(plan!.message).toMatch(new RegExp(`^indexing .*shop: ${files} files to read \\(\\d+\\.\\d MB\\) on \\d+ threads?, (under a second|about \\d+ s)$`));
    // Files done, in order, up to all of them.
    const done = rest.map((r) => r.progress);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(new Set(done).size).toBe(done.length);
    expect(rest.every((r) => r.total === files)).toBe(true);
    expect(rest.at(-1)!.progress).toBe(files);
    expect(rest.at(-1)!.message).toMatch(/^indexed \d+ files in \d+\.\d s$/);

    // The same repository again: nothing to index, nothing reported, the same answer.
    const again: Progress[] = [];
    const second = await navigate(again);
    expect(again).toEqual([]);
    expect(second.structuredContent).toEqual(first.structuredContent);
    // And without a progressToken the answer is the same too.
    expect((await navigate()).structuredContent).toEqual(first.structuredContent);
  });
});

/** Files the index lists: every file of the fixture copy (it has no ignored or binary files). */
function countFiles(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}
