// What a coding agent does with `navkernel mcp`, done by a script: start the server over stdio with the MCP SDK's
// client, list its tools, ask `navigate` for the code a task needs, route two steps of a run, and audit the run.
//
//   npx tsc -p examples/tsconfig.json && node dist-examples/mcp/ask-navkernel.js [LEDGER_FILE]
//
// A coding agent is pointed at the same server with one line, e.g. for Claude Code:
//   claude mcp add navkernel -- npx navkernel mcp --repo .
// $NAVKERNEL is the navkernel command (default `npx navkernel`; from a checkout `node bin/navkernel.js`).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples');
const ledger = process.argv[2] ?? path.join(mkdtempSync(path.join(tmpdir(), 'navkernel-mcp-')), 'ledger.sqlite');
const [command, ...args] = (process.env.NAVKERNEL ?? 'npx navkernel').split(' ');

const transport = new StdioClientTransport({
  command: command!,
  args: [...args, 'mcp', '--repo', examples, '--flows', path.join(examples, 'custom-flow'), '--ledger', ledger, '--no-cache'],
  stderr: 'ignore',
});
const client = new Client({ name: 'ask-navkernel', version: '1.0.0' });
await client.connect(transport);
try {
  console.log(`tools: ${(await client.listTools()).tools.map((t) => t.name).join(', ')}`);

  const nav = (await client.callTool({ name: 'navigate', arguments: { repo: '.', task: 'where does replay-ci.sh fail the build?', max_files: 3 } })).structuredContent as {
    stop_reason: string;
    files: { path: string; ranges: [number, number][] }[];
  };
  console.log(`navigate: ${nav.stop_reason}`);
  for (const f of nav.files) console.log(`  ${f.path} lines ${f.ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ')}`);

  for (const [step, status] of [['package', 'VERIFIED'], ['check', 'FAILED']] as const) {
    const d = (await client.callTool({ name: 'route', arguments: { run_id: 'mcp-example', flow: 'release', step_completed: step, status } })).structuredContent as { decision: string; next_step_id: string | null; tier: number; rule: string };
    console.log(`route ${step} ${status}: ${d.decision} ${d.next_step_id ?? '-'} (tier ${d.tier} ${d.rule})`);
  }

  const bad = await client.callTool({ name: 'route', arguments: { run_id: 'mcp-example', flow: 'release', step_completed: 'nowhere', status: 'VERIFIED' } });
  console.log(`a bad request is a tool error: ${(JSON.parse((bad.content as { text: string }[])[0]!.text) as { error: { code: string } }).error.code}`);

  const audit = (await client.callTool({ name: 'audit', arguments: { run_id: 'mcp-example' } })).structuredContent as { run: { steps: number; offroad: number; status: string } };
  console.log(`audit: ${audit.run.steps} routes, ${audit.run.offroad} off-road, ${audit.run.status}`);
} finally {
  await client.close();
}
