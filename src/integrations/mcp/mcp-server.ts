import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { NavkernelError, ValidationError } from '../../contracts/index.js';
import { requireOptionalPackage } from '../../optional-package.js';
import { VERSION } from '../../version.js';
import type { ProgressReport } from './index-progress.js';
import { guardLines } from './line-guard.js';
import { screenMessage } from './message-screen.js';
import { listResources, readResource, RUN_DECISIONS_TEMPLATE } from './resources.js';
import { toolDefs, type ToolContext } from './tools.js';

export type McpServerOptions = ToolContext;

/** The largest MCP message read from stdin (the SDK's own stdio buffer holds 10 MiB). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** The JSON-RPC error MCP uses for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** A failed call as MCP's tool error: the error line of the co-process (`{"error":{"code","message",…}}`) as its text. */
export function toolError(err: unknown): { isError: true; content: { type: 'text'; text: string }[] } {
  const known = err instanceof NavkernelError;
  const error = {
    code: known ? err.code : 'INTERNAL',
    message: err instanceof Error ? err.message : String(err),
    ...(err instanceof ValidationError && err.issues.length ? { issues: err.issues } : {}),
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}

/** Throws MISSING_PACKAGE (MissingPackageError) naming @modelcontextprotocol/sdk when it cannot be imported. */
export function requireMcpSdk(): void {
  requireOptionalPackage('@modelcontextprotocol/sdk', 'navkernel mcp', '@modelcontextprotocol/sdk/server/index.js');
}

/** Loads the MCP SDK (an optional peer dependency), or throws MISSING_PACKAGE naming it. */
async function loadSdk() {
  requireMcpSdk();
  const [server, types, stdio] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  return { ...server, ...types, ...stdio };
}

/**
 * An MCP server (the SDK's low-level `Server`: the tools' JSON Schemas are navkernel's published ones) offering
 * navigate, route, list_runs, audit, why, verify, replay (and resolve with `allowResolve`) as tools, and the
 * flows and each run's decisions as resources. Every failed call is a tool error carrying the stable code; none
 * stops the server. Connect it to a transport with `server.connect(transport)`.
 */
export async function createMcpServer(options: McpServerOptions): Promise<Server> {
  const sdk = await loadSdk();
  const tools = toolDefs(options.allowResolve);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new sdk.Server(
    { name: 'navkernel', version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'navkernel: `navigate` loads the least code a task needs from a repository; `route` routes a finished step of an agent flow; `list_runs`, `audit`, `why`, `verify` and `replay` read the decision ledger.',
    },
  );
  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as { type: 'object' }, outputSchema: t.outputSchema as { type: 'object' }, annotations: t.annotations })),
  }));
  server.setRequestHandler(sdk.CallToolRequestSchema, async (req, extra) => {
    const tool = byName.get(req.params.name);
    if (!tool) {
      const hint = req.params.name === 'resolve' ? ': this server was started without --allow-resolve' : ` (tools: ${tools.map((t) => t.name).join(', ')})`;
      return toolError(new NavkernelError('UNKNOWN_TOOL', `no tool ${JSON.stringify(req.params.name)}${hint}`));
    }
    try {
      // A client that sent a progressToken gets notifications/progress for it (navigate: while it indexes).
      const token = req.params._meta?.progressToken;
      const report =
        token === undefined
          ? undefined
          : (p: ProgressReport) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...p } }).catch(() => {});
      const out = await tool.call(req.params.arguments, options, report);
      return { content: [{ type: 'text' as const, text: JSON.stringify(out) }], structuredContent: out };
    } catch (err) {
      if (!(err instanceof NavkernelError)) process.stderr.write(`navkernel mcp: ${tool.name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      return toolError(err);
    }
  });
  server.setRequestHandler(sdk.ListResourcesRequestSchema, async (req) => {
    try {
      return await listResources(options.kernel.flows, options.ledger, req.params?.cursor);
    } catch (err) {
      // The stable code rides in `data`, as for every other JSON-RPC error this server answers.
      throw new sdk.McpError(sdk.ErrorCode.InvalidParams, err instanceof Error ? err.message : String(err), { code: err instanceof NavkernelError ? err.code : 'INTERNAL' });
    }
  });
  server.setRequestHandler(sdk.ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: RUN_DECISIONS_TEMPLATE, name: 'run decisions', description: "A run's routes in order: step, status and the kernel's decision (tier, rule, reason)", mimeType: 'application/json' }],
  }));
  server.setRequestHandler(sdk.ReadResourceRequestSchema, async (req) => {
    let content: Awaited<ReturnType<typeof readResource>>;
    try {
      content = await readResource(options.kernel.flows, options.ledger, req.params.uri);
    } catch (err) {
      const code = err instanceof NavkernelError ? err.code : 'INTERNAL';
      const notFound = code === 'UNKNOWN_RUN' || code === 'UNKNOWN_FLOW';
      throw new sdk.McpError(notFound ? RESOURCE_NOT_FOUND : sdk.ErrorCode.InternalError, err instanceof Error ? err.message : String(err), { code, uri: req.params.uri });
    }
    if (!content) throw new sdk.McpError(RESOURCE_NOT_FOUND, `no resource ${req.params.uri}`, { code: 'NOT_FOUND', uri: req.params.uri });
    return { contents: [content] };
  });
  return server;
}

/**
 * Serves MCP on stdio (`navkernel mcp`): resolves when the client closes the connection (stdin ends) or `signal`
 * aborts. Nothing but protocol messages is written to `stdout`.
 */
export async function serveMcpStdio(options: McpServerOptions, io: { stdin?: Readable; stdout?: Writable; signal?: AbortSignal } = {}): Promise<void> {
  const sdk = await loadSdk();
  const server = await createMcpServer(options);
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  // A message larger than the limit is answered with a JSON-RPC error (it has no readable id) and dropped, instead
  // of reaching the SDK's transport, which would close on it.
  const isMessage = (v: unknown) => sdk.JSONRPCMessageSchema.safeParse(v).success;
  const input = guardLines(
    stdin,
    MAX_MESSAGE_BYTES,
    (bytes) => {
      stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `message of ${bytes} bytes is larger than the limit of ${MAX_MESSAGE_BYTES} bytes: dropped`, data: { code: 'INPUT_TOO_LARGE' } } })}\n`);
    },
    // Lines the SDK would drop unanswered (not JSON, not JSON-RPC) or read wrongly (a `__proto__` key) are
    // answered here (message-screen.ts).
    (line) => {
      const screened = screenMessage(line.toString('utf8'), isMessage);
      if (screened === undefined) return true;
      if ('reply' in screened) stdout.write(`${JSON.stringify(screened.reply)}\n`);
      return false;
    },
  );
  const transport = new sdk.StdioServerTransport(input, stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    stdin.once('end', () => resolve());
    io.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
