// Checks made on every request before any handler runs: that the path spells the route the router matched
// literally, and that the Host header names a host this server answers for. Both decide on what the router
// matched and on parsed values, never on a prefix of the raw URL (issue 35: `/%761/runs` reached `/v1/runs`).

/**
 * Whether the raw path (no query) spells `template` (a Fastify route: `/v1/runs/:id`) literally: every fixed
 * segment byte for byte, so `/%761/runs`, `/v%31/runs` and `/v1/r%75ns` are not `/v1/runs`. Parameter segments may
 * be percent-encoded (a run id may hold any character); they are one segment each, as the router matched them.
 */
export function spellsLiterally(rawPath: string, template: string): boolean {
  if (rawPath === template) return true;
  // A fragment never belongs in a request target (RFC 9112); the router drops it from a parameter silently.
  if (!template.includes(':') || rawPath.includes('#')) return false;
  const want = template.split('/');
  const got = rawPath.split('/');
  if (got.length !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (!want[i]!.startsWith(':') && got[i] !== want[i]) return false;
  return true;
}

/** The path of a raw request target (what precedes `?`). */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The host name of a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`), lower-cased; undefined when malformed. */
export function hostNameOf(header: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/.exec(header);
  if (!m) return undefined;
  if (m[2] !== undefined && Number(m[2]) > 65535) return undefined;
  return m[1]!.toLowerCase();
}

/** Loopback names: localhost, 127.0.0.0/8 as a dotted quad, [::1]. Not `localhost.` or `127.0.0.1.nip.io`. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name === '[::1]' || name === '[0:0:0:0:0:0:0:1]') return true;
  const m = IPV4.exec(name);
  return m !== null && m[1] === '127' && m.slice(2).every((o) => Number(o) <= 255);
}

/**
 * The Host check: undefined when every Host is accepted (a server that needs a token and names no allowed hosts:
 * a rebound page has no token), else a function telling whether a Host header is accepted: loopback names and the
 * `allowed` ones. A request without a Host header (HTTP/1.0; no browser sends one) is accepted.
 */
export function hostCheck(options: { authRequired: boolean; allowed: readonly string[] }): ((host: string | undefined) => boolean) | undefined {
  if (options.authRequired && options.allowed.length === 0) return undefined;
  const allowed = new Set(options.allowed.map((h) => h.toLowerCase()));
  // Accepted header values, so a keep-alive client's Host is parsed once (bounded: refused values are not kept).
  let seen = new Set<string>();
  return (host) => {
    if (host === undefined || seen.has(host)) return true;
    const name = hostNameOf(host);
    if (name === undefined || !(isLoopbackName(name) || allowed.has(name))) return false;
    if (seen.size >= 64) seen = new Set();
    seen.add(host);
    return true;
  };
}
