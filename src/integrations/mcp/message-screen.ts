import type { ErrorCode } from '../../contracts/error-codes.js';
import { issuePathText, type IssuePath } from '../../contracts/errors.js';
/**
 * What the MCP server answers itself, before a line reaches the SDK's stdio transport (which drops what it cannot
 * parse and replies nothing, and whose schemas copy arguments in a way that loses a `__proto__` key):
 *
 * - a line that is not JSON: `-32700 Parse error`, id null (JSON-RPC 2.0 §5.1);
 * - JSON that is not a JSON-RPC message: `-32600 Invalid Request`, with the request's id when it has a usable one;
 * - a message holding a `__proto__` key anywhere in its params: refused as the co-process refuses it
 *   (INVALID_REQUEST naming the path): a tool error for `tools/call`, else `-32600` with the code in `data`.
 *
 * Undefined when the line is for the SDK. Blank lines are dropped with no answer.
 */
export type Screen = { reply: Record<string, unknown> } | { drop: true } | undefined;

const PROTO = '__proto__';

export function screenMessage(line: string, isMessage: (value: unknown) => boolean): Screen {
  if (line.trim() === '') return { drop: true };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { reply: rpcError(null, -32700, 'Parse error: the line is not valid JSON', 'INVALID_JSON') };
  }
  const id = usableId(value);
  if (!isMessage(value)) return { reply: rpcError(id, -32600, 'Invalid Request: not a JSON-RPC 2.0 message', 'INVALID_REQUEST') };
  // JSON.parse keeps a `__proto__` key as an own property (written plainly or with \u escapes); look only when it
  // could be there.
  if (!line.includes(PROTO) && !line.includes('\\u')) return undefined;
  const params = (value as { params?: unknown }).params;
  const method = (value as { method?: unknown }).method;
  if (method === 'tools/call' && isObject(params)) {
    const at = protoPath(params.arguments, []);
    if (at !== undefined) return { reply: { jsonrpc: '2.0', id, result: toolError('INVALID_REQUEST', `${issuePathText(at)}: is not an allowed property (a "${PROTO}" key is refused)`, at) } };
  }
  const at = protoPath(params, ['params']);
  if (at !== undefined) return { reply: rpcError(id, -32600, `Invalid Request: ${issuePathText(at)}: a "${PROTO}" key is refused`, 'INVALID_REQUEST') };
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON-RPC id of a message, when it is one an answer can carry (a string or a number), else null. */
function usableId(value: unknown): string | number | null {
  const id = isObject(value) ? value.id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** The path of the first `__proto__` key in a parsed JSON value (breadth of one object at a time, keys in order). */
function protoPath(value: unknown, at: IssuePath): IssuePath | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = protoPath(value[i], [...at, i]);
      if (p) return p;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  for (const key of Object.keys(value)) {
    if (key === PROTO) return [...at, PROTO];
    const p = protoPath(value[key], [...at, key]);
    if (p) return p;
  }
  return undefined;
}

function rpcError(id: string | number | null, code: number, message: string, navkernelCode: ErrorCode) {
  return { jsonrpc: '2.0', id, error: { code, message, data: { code: navkernelCode } } };
}

/** The tool error shape of mcp-server.ts's toolError: the co-process's error line as the text. */
function toolError(code: ErrorCode, message: string, path: IssuePath) {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message, path } }) }] };
}
