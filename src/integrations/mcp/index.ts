// `navkernel mcp`: navkernel as an MCP server (tools and resources), over the public API below it. Needs the
// optional peer dependency @modelcontextprotocol/sdk, loaded only when a server is created.
export { createMcpServer, serveMcpStdio, requireMcpSdk, toolError, type McpServerOptions } from './mcp-server.js';
export { toolDefs, type ToolContext, type ToolDef } from './tools.js';
export { repoInsideRoots } from './repo-roots.js';
export { RUN_DECISIONS_TEMPLATE } from './resources.js';
