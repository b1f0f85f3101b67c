// `npm run api`: writes docs/api.md, the API report: every name each package entry exports (runtime names from the
// built module, type-only names from its emitted .d.ts), each with its kind and the first sentence of its doc comment.
// tests/package/api-report.test.ts fails, with the names added and removed, when the surface drifts from the file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../src/package-root.js';

export interface ApiName {
  name: string;
  /** function, class, value (a constant or a zod schema with its type), or type. */
  kind: 'function' | 'class' | 'value' | 'type';
  summary: string;
}

export interface ApiEntry {
  /** The import specifier: `navkernel`, `navkernel/kernel`, … */
  specifier: string;
  names: ApiName[];
}

interface Manifest {
  exports: Record<string, string | { types: string; default: string }>;
}

/** The package's code entries (package.json `exports`), with their built module and declaration file. */
export function entryFiles(root = packageRoot()): { specifier: string; js: string; dts: string }[] {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
  return Object.entries(manifest.exports)
    .filter((e): e is [string, { types: string; default: string }] => typeof e[1] === 'object')
    .map(([key, target]) => ({ specifier: key === '.' ? 'navkernel' : `navkernel/${key.slice(2)}`, js: path.join(root, target.default), dts: path.join(root, target.types) }));
}

const EXPORT_LIST = /export\s+(type\s+)?\{([^}]*)\}(?:\s+from\s+'([^']+)')?/g;
const DECLARATION = /^export\s+(?:declare\s+)?(?:abstract\s+)?(function|class|const|let|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

/** The names a declaration file exports (a name to the file and local name that declares it); `export *` is refused. */
function dtsExports(file: string): Map<string, { file: string; local: string }> {
  const text = readFileSync(file, 'utf8');
  if (/export\s+(type\s+)?\*/.test(text)) throw new Error(`${path.relative(packageRoot(), file)}: an entry re-exports with export *; name what it exports`);
  const out = new Map<string, { file: string; local: string }>();
  for (const m of text.matchAll(EXPORT_LIST)) {
    for (const raw of m[2]!.split(',')) {
      const spec = raw.trim().replace(/^type\s+/, '');
      if (!spec) continue;
      const [local, exported = local] = spec.split(/\s+as\s+/).map((s) => s.trim()) as [string, string?];
      const from = m[3] ? path.resolve(path.dirname(file), m[3].replace(/\.js$/, '.d.ts')) : file;
      out.set(exported, { file: from, local });
    }
  }
  for (const m of text.matchAll(DECLARATION)) out.set(m[2]!, { file, local: m[2]! });
  return out;
}

/** The first sentence of the doc comment on `local`'s declaration in `file`, following re-exports. */
function summaryOf(file: string, local: string, depth = 0): string {
  if (depth > 8 || !existsSync(file)) return '';
  const text = readFileSync(file, 'utf8');
  const esc = local.replace(/\$/g, '\\$');
  const decl = new RegExp(`(/\\*\\*(?:(?!\\*/)[\\s\\S])*\\*/)\\s*export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:function|class|const|let|interface|type|enum)\\s+${esc}\\b`);
  const m = decl.exec(text);
  if (m) return firstSentence(m[1]!);
  if (new RegExp(`export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:function|class|const|let|interface|type|enum)\\s+${esc}\\b`).test(text)) return '';
  for (const r of text.matchAll(EXPORT_LIST)) {
    if (!r[3]) continue;
    for (const raw of r[2]!.split(',')) {
      const [l, e = l] = raw.trim().replace(/^type\s+/, '').split(/\s+as\s+/).map((s) => s.trim()) as [string, string?];
      if (e === local) return summaryOf(path.resolve(path.dirname(file), r[3].replace(/\.js$/, '.d.ts')), l, depth + 1);
    }
  }
  return '';
}

function firstSentence(doc: string): string {
  const body = doc
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, ''))
    .filter((l) => !l.startsWith('@'))
    .join(' ')
    .replace(/\{@link\s+([^}]+)\}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const end = body.search(/\.(\s|$)/);
  return (end === -1 ? body : body.slice(0, end + 1)).replace(/\|/g, '\\|');
}

/** The exported names of each entry, sorted, runtime and type-only. */
export async function apiEntries(root = packageRoot()): Promise<ApiEntry[]> {
  const entries: ApiEntry[] = [];
  for (const e of entryFiles(root)) {
    const declared = dtsExports(e.dts);
    let runtime: Record<string, unknown> = {};
    try {
      runtime = (await import(pathToFileURL(e.js).href)) as Record<string, unknown>;
    } catch (err) {
      // An entry whose optional peer is missing (navkernel/langgraph without @langchain/langgraph) still has a surface.
      if ((err as { code?: string }).code !== 'MISSING_PACKAGE') throw err;
    }
    const names = new Set([...declared.keys(), ...Object.keys(runtime)]);
    entries.push({
      specifier: e.specifier,
      names: [...names].sort((a, b) => a.localeCompare(b, 'en')).map((name) => {
        const v = runtime[name];
        const kind: ApiName['kind'] = !(name in runtime) ? 'type' : typeof v === 'function' ? (/^class\b/.test(Function.prototype.toString.call(v)) ? 'class' : 'function') : 'value';
        const at = declared.get(name);
        return { name, kind, summary: at ? summaryOf(at.file, at.local) : '' };
      }),
    });
  }
  return entries;
}

/** docs/api.md: the report's readable form. */
export function renderApiReport(entries: ApiEntry[]): string {
  const lines = [
    '# The public API',
    '',
    'Generated by `npm run api` from the built package (runtime names from each entry, type-only names from its',
    '`.d.ts`); `tests/package/api-report.test.ts` fails when the surface and this file differ. Anything not listed here is',
    'internal and may change in any release. Errors and their codes: [errors.md](errors.md); store authors:',
    '[store-authors.md](store-authors.md); what changed at 1.0: [CHANGELOG.md](../CHANGELOG.md).',
    '',
  ];
  for (const e of entries) {
    const runtime = e.names.filter((n) => n.kind !== 'type').length;
    lines.push(`## \`${e.specifier}\``, '', `${runtime} runtime names, ${e.names.length - runtime} types.`, '', '| name | kind | what it is |', '|---|---|---|');
    for (const n of e.names) lines.push(`| \`${n.name}\` | ${n.kind} | ${n.summary || '—'} |`);
    lines.push('');
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = path.join(packageRoot(), 'docs', 'api.md');
  writeFileSync(file, renderApiReport(await apiEntries()));
  console.log(`wrote ${file}`);
}
