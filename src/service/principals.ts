// Who may call `navkernel serve`: principals with scopes, read from a tokens file that holds only the SHA-256 of
// each token. A presented bearer token is hashed and compared with every principal's hash in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { NavkernelError } from '../contracts/index.js';

// yaml (CommonJS, ~50 ms to load) is required on first use, not when the package is imported.
let yaml: typeof import('yaml') | undefined;
const yamlModule = (): typeof import('yaml') => (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/** What a principal may do: route (runners), read (runs, audit, verify, replay, stats), resolve (escalations), admin. */
export const SCOPES = ['route', 'read', 'resolve', 'admin'] as const;
/** What a principal may do: route, read, resolve or admin. */
export type Scope = (typeof SCOPES)[number];

/** An authenticated caller. */
export interface Principal {
  readonly name: string;
  readonly scopes: ReadonlySet<Scope>;
  /**
   * False for the single shared `--token`: it proves the caller holds the server's token, not who they are, so a
   * resolution through it keeps the name the request gives and is marked unauthenticated.
   */
  readonly identified: boolean;
}

interface Entry {
  principal: Principal;
  digest: Buffer;
}

/** The name the single `--token` principal carries (every scope, not a person). */
export const SHARED_TOKEN_PRINCIPAL = 'shared-token';

/** A tokens file that cannot be read or is not valid (INVALID_CONFIG): names the file and the entry. */
export function invalidTokensFile(message: string): NavkernelError {
  return new NavkernelError('INVALID_CONFIG', message);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Parses a tokens file's text (YAML or JSON): `principals: [{ name, scopes: [...], token_sha256: HEX }]`. */
export function parseTokensFile(text: string, file: string): Principal[] & { digests: Buffer[] } {
  let doc: unknown;
  try {
    doc = yamlModule().parse(text);
  } catch (e) {
    throw invalidTokensFile(`${file}: not YAML or JSON: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const list = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as { principals?: unknown }).principals : undefined;
  if (!Array.isArray(list)) throw invalidTokensFile(`${file}: expected a top-level "principals:" list`);
  const principals: Principal[] = [];
  const digests: Buffer[] = [];
  const names = new Set<string>();
  const seen = new Set<string>();
  list.forEach((raw: unknown, i) => {
    const at = `${file}: $.principals[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidTokensFile(`${at}: expected an object with name, scopes and token_sha256`);
    const { name, scopes, token_sha256, ...rest } = raw as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) {
      const hint = extra.includes('token') ? ' (store the token\'s SHA-256 as token_sha256, never the token: `navkernel token new`)' : '';
      throw invalidTokensFile(`${at}: unknown key ${JSON.stringify(extra[0])}${hint}`);
    }
    if (typeof name !== 'string' || !/^[\w.@-]{1,128}$/.test(name)) throw invalidTokensFile(`${at}.name: expected a name of letters, digits, _ . @ - (got ${JSON.stringify(name)})`);
    if (names.has(name)) throw invalidTokensFile(`${at}.name: ${name} is named twice`);
    if (!Array.isArray(scopes) || scopes.length === 0) throw invalidTokensFile(`${at}.scopes: expected a non-empty list of ${SCOPES.join(', ')}`);
    for (const s of scopes) {
      if (!SCOPES.includes(s as Scope)) throw invalidTokensFile(`${at}.scopes: unknown scope ${JSON.stringify(s)} (known: ${SCOPES.join(', ')})`);
    }
    if (typeof token_sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(token_sha256)) throw invalidTokensFile(`${at}.token_sha256: expected 64 hex digits (the SHA-256 of the token)`);
    const hex = token_sha256.toLowerCase();
    if (seen.has(hex)) throw invalidTokensFile(`${at}.token_sha256: the same token is given to two principals`);
    names.add(name);
    seen.add(hex);
    principals.push({ name, scopes: new Set(scopes as Scope[]), identified: true });
    digests.push(Buffer.from(hex, 'hex'));
  });
  return Object.assign(principals, { digests });
}

/** The principals a server knows, reloadable while it serves. */
export interface PrincipalDirectory {
  /** Whether any credential is configured (otherwise every request is anonymous with every scope, loopback only). */
  readonly required: boolean;
  /** The principal a bearer token belongs to, or undefined. Constant time in the token and over every entry. */
  authenticate(token: string): Principal | undefined;
  /** Re-reads the tokens file; on error keeps the principals it had and throws. */
  reload(): void;
  /** How many principals (for the start-up line). */
  readonly size: number;
}

/** Principals from a tokens file and/or the single shared `--token` (every scope). */
export function createPrincipalDirectory(options: { tokensFile?: string; token?: string }): PrincipalDirectory {
  let entries: Entry[] = [];
  const shared: Entry[] =
    options.token !== undefined
      ? [{ principal: { name: SHARED_TOKEN_PRINCIPAL, scopes: new Set(SCOPES), identified: false }, digest: sha256(options.token) }]
      : [];
  const load = () => {
    if (options.tokensFile === undefined) return;
    let text: string;
    try {
      text = readFileSync(options.tokensFile, 'utf8');
    } catch (e) {
      throw invalidTokensFile(`${options.tokensFile}: cannot read the tokens file: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    const parsed = parseTokensFile(text, options.tokensFile);
    entries = parsed.map((principal, i) => ({ principal, digest: parsed.digests[i]! }));
  };
  // Tokens already proven, by the header value presented: a caller that sends the same token on every request
  // (a runner on keep-alive) is not hashed and compared against every entry each time. Only accepted tokens are
  // kept (a stream of wrong ones cannot grow it), at most MAX_CACHED of them, in memory only (the Map is never
  // logged or serialised), and the whole cache is dropped whenever the tokens file is (re)loaded, so a token removed
  // from the file stops working at that reload, and a principal whose scopes changed gets the new ones.
  let proven = new Map<string, Principal>();
  load();
  const verify = (token: string): Principal | undefined => {
    const d = sha256(token);
    let found: Principal | undefined;
    // Every entry is compared, so the time does not tell which one (or whether one) matched.
    for (const e of shared) if (timingSafeEqual(d, e.digest) && !found) found = e.principal;
    for (const e of entries) if (timingSafeEqual(d, e.digest) && !found) found = e.principal;
    return found;
  };
  return {
    required: options.tokensFile !== undefined || options.token !== undefined,
    get size() {
      return entries.length + shared.length;
    },
    authenticate(token) {
      const hit = proven.get(token);
      if (hit !== undefined) return hit;
      const found = verify(token);
      if (found !== undefined) {
        if (proven.size >= MAX_CACHED) proven = new Map();
        proven.set(token, found);
      }
      return found;
    },
    reload() {
      load();
      // After a successful load only: a file that does not parse keeps the principals, and their cache, as they were.
      proven = new Map();
    },
  };
}

/** Accepted tokens remembered by a principal directory (a handful in practice: one per runner or person). */
const MAX_CACHED = 256;

/** A fresh token and the tokens-file entry that admits it (`navkernel token new`). */
export function newToken(name: string, scopes: readonly string[]): { token: string; entry: { name: string; scopes: Scope[]; token_sha256: string } } {
  if (!/^[\w.@-]{1,128}$/.test(name)) throw invalidTokensFile(`NAME must be letters, digits, _ . @ - (got ${JSON.stringify(name)})`);
  if (scopes.length === 0) throw invalidTokensFile(`give at least one --scope (${SCOPES.join(', ')})`);
  for (const s of scopes) if (!SCOPES.includes(s as Scope)) throw invalidTokensFile(`unknown scope ${JSON.stringify(s)} (known: ${SCOPES.join(', ')})`);
  const token = `nk_${randomBytes(32).toString('base64url')}`;
  const ordered = SCOPES.filter((s) => scopes.includes(s));
  return { token, entry: { name, scopes: ordered, token_sha256: sha256(token).toString('hex') } };
}
