import { NavkernelError, type Ledger } from '../../contracts/index.js';
import type { FlowSet } from '../../kernel/index.js';
import { requireRun } from '../../ledger/index.js';
import { runRoutes } from '../../runs/index.js';

// MCP resources: each flow's definition, and each run's decisions. Runs are listed page by page (MCP's own cursor),
// and reachable by the template navkernel://runs/{run_id}/decisions for runs recorded after the listing.

export const FLOW_URI = 'navkernel://flows/';
export const RUN_URI = 'navkernel://runs/';
export const RUN_DECISIONS_TEMPLATE = 'navkernel://runs/{run_id}/decisions';
const RUNS_PER_PAGE = 200;

export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

const runUri = (run_id: string) => `${RUN_URI}${encodeURIComponent(run_id)}/decisions`;

/** One page of resources: the flows first (on the first page), then runs; `cursor` is the previous page's nextCursor. */
export async function listResources(flows: FlowSet, ledger: Ledger, cursor: string | undefined): Promise<{ resources: ResourceEntry[]; nextCursor?: string }> {
  const resources: ResourceEntry[] = [];
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new NavkernelError('INVALID_REQUEST', `cursor is not a nextCursor this server gave (got ${JSON.stringify(cursor)})`);
  if (offset === 0) {
    for (const f of [...flows.flows.values()].sort((a, b) => a.id.localeCompare(b.id))) {
      resources.push({ uri: `${FLOW_URI}${encodeURIComponent(f.id)}`, name: `flow ${f.id}`, description: f.charter.goal, mimeType: 'application/json' });
    }
  }
  const page = await ledger.runPage({ limit: RUNS_PER_PAGE, offset });
  for (const r of page.runs) {
    resources.push({ uri: runUri(r.run_id), name: `run ${r.run_id} decisions`, description: `${r.last_seq} routes in ${r.flows.join(', ')}; ${r.status}`, mimeType: 'application/json' });
  }
  return { resources, ...(page.next ? { nextCursor: String(offset + page.runs.length) } : {}) };
}

/** The text of one resource, or undefined for a URI this server does not serve. Unknown runs and flows are typed errors. */
export async function readResource(flows: FlowSet, ledger: Ledger, uri: string): Promise<{ uri: string; mimeType: string; text: string } | undefined> {
  if (uri.startsWith(FLOW_URI)) {
    const id = decodeURIComponent(uri.slice(FLOW_URI.length));
    const flow = flows.get(id);
    if (!flow) throw new NavkernelError('UNKNOWN_FLOW', `no flow ${JSON.stringify(id)} (flows: ${[...flows.flows.keys()].join(', ')})`);
    return { uri, mimeType: 'application/json', text: JSON.stringify(flow.def, null, 2) };
  }
  const m = /^navkernel:\/\/runs\/([^/]+)\/decisions$/.exec(uri);
  if (!m) return undefined;
  const run_id = decodeURIComponent(m[1]!);
  await requireRun(ledger, run_id);
  const decisions: unknown[] = [];
  for await (const { row, decision } of runRoutes(ledger, run_id)) {
    decisions.push({ seq: row.seq, flow: row.flow, step: row.step, status: (JSON.parse(row.request) as { status?: string }).status ?? null, ts: row.ts, decision });
  }
  return { uri, mimeType: 'application/json', text: JSON.stringify({ run_id, decisions }, null, 2) };
}
