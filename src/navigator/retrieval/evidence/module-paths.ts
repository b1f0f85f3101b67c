/**
 * Package-qualified names resolved through each language's own module system, from the repository's manifests:
 * Rust `crate::a::b::Item` and `::`-paths (workspace crates by their `Cargo.toml` name, `a/b.rs` or `a/b/mod.rs`
 * under the crate's `src/`), Rust macros (`select!`), Go import paths (a `go.mod` module's folders) and package
 * qualifiers (`queue.Push` → the folder `queue/`), Java/Kotlin packages (`com.acme.json.Json` →
 * `…/com/acme/json/Json.java`), and JavaScript/TypeScript import specifiers (a workspace package's name from its
 * `package.json`, a `tsconfig.json` path alias) to their files. Reading the issue is pure; resolving reads only the
 * manifests among the repository's indexed files.
 */

/** What the issue writes that a module system resolves. */
export interface ModuleMentions {
  /** `a::b::C` paths, split at `::` (a leading `::` dropped). */
  rustPaths: string[][];
  /** Macro names invoked (`select!`, `pin_mut!(x)`). */
  macros: string[];
  /** Import specifiers of JavaScript/TypeScript (`dayjs/plugin/utc`, `@scope/pkg`, `@/util/x`) with the names imported. */
  jsImports: { spec: string; names: string[] }[];
  /** Go import paths (`github.com/acme/relay/core/queue`). */
  goImports: string[];
}

const RUST_PATH = /(?<![\w:])(?:::)?[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+/g;
const MACRO = /(?<![\w!$])([a-z_][a-z0-9_]*)!\s*[([{]/g;
const MACRO_BACKTICK = /`([a-z_][a-z0-9_]*)!(?:\s*[([{][^`]*)?`/g;
const JS_IMPORT = /(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1/gm;
const JS_NAMES = /\bimport\s+(?:type\s+)?(?:([A-Za-z_$][\w$]*)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s*['"]([^'"\n]+)['"]/g;
const GO_IMPORT = /(?<![\w./-])((?:[a-z0-9-]+\.)+[a-z]{2,}(?:\/[\w.~-]+)+)/g;

/** Reads the module-qualified mentions of an issue (pure). */
export function moduleMentions(text: string): ModuleMentions {
  const rustPaths: string[][] = [];
  const macros: string[] = [];
  for (const m of text.matchAll(RUST_PATH)) {
    const parts = m[0].replace(/^::/, '').split('::');
    // `pulse::select!`: a macro exported at the crate's root, whatever module defines it.
    if (text[m.index + m[0].length] === '!') {
      if (!macros.includes(parts[parts.length - 1]!)) macros.push(parts[parts.length - 1]!);
      continue;
    }
    if (!rustPaths.some((p) => p.join('::') === parts.join('::'))) rustPaths.push(parts);
  }
  for (const re of [MACRO, MACRO_BACKTICK]) for (const m of text.matchAll(re)) if (m[1]!.length >= 3 && !macros.includes(m[1]!)) macros.push(m[1]!);
  const jsImports: ModuleMentions['jsImports'] = [];
  const named = new Map<string, string[]>();
  for (const m of text.matchAll(JS_NAMES)) {
    const names = [m[1], ...(m[2] ?? '').split(',').map((s) => s.trim().split(/\s+as\s+/)[0])].filter((s): s is string => !!s && /^[A-Za-z_$][\w$]*$/.test(s));
    named.set(m[3]!, [...(named.get(m[3]!) ?? []), ...names]);
  }
  for (const m of text.matchAll(JS_IMPORT)) {
    const spec = m[2]!;
    if (/^(node:|https?:|\.)/.test(spec) || jsImports.some((i) => i.spec === spec)) continue;
    jsImports.push({ spec, names: [...new Set(named.get(spec) ?? [])] });
  }
  const goImports: string[] = [];
  for (const m of text.matchAll(GO_IMPORT)) {
    const p = m[1]!.replace(/[.)]+$/, '');
    if (/\.(com|org|net|io|dev|in|cn)$/.test(p) || /\/(blob|tree|issues|pull|commit)\//.test(p)) continue;
    if (!goImports.includes(p)) goImports.push(p);
  }
  return { rustPaths, macros, jsImports, goImports };
}

/** Where a mention leads: files (a module), and optionally the member named in them. */
export interface ModuleTarget {
  files: string[];
  /** The item inside the module (`Sender` of `mpsc::Sender`), and the member of that item (`send` of `Sender::send`). */
  member?: string;
  submember?: string;
  /** The folder the module's items may live anywhere under (a re-export), when the module file lacks the member. */
  under?: string;
  why: string;
}

const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const join = (dir: string, rel: string) => (dir ? `${dir}/${rel}` : rel);
const SKIP_DIR = /(^|\/)(node_modules|vendor|third_party|target|dist|build|tests?|examples?|benches|fixtures?)\//;
const RUST_ROOTS = new Set(['std', 'core', 'alloc', 'proc_macro']);
const JS_EXT = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.jsx'];

/**
 * Resolves the mentions against the repository: `paths` are its files, `read` gives a manifest's text. Each
 * resolved mention gives one target; unresolved ones give none. Deterministic (paths in their given order).
 */
export function resolveModules(m: ModuleMentions, paths: readonly string[], read: (p: string) => string): ModuleTarget[] {
  const have = new Set(paths);
  const out: ModuleTarget[] = [];
  const manifests = (base: string) => paths.filter((p) => (p === base || p.endsWith(`/${base}`)) && !SKIP_DIR.test(p));

  // Rust: crates by their package name (hyphens read as underscores in paths).
  if (m.rustPaths.length) {
    const crates = new Map<string, string>();
    for (const p of manifests('Cargo.toml')) {
      const pkg = /^\s*\[package\][^[]*?^\s*name\s*=\s*"([^"]+)"/ms.exec(read(p));
      if (pkg) crates.set(pkg[1]!.replace(/-/g, '_'), dirOf(p));
    }
    const moduleIn = (dir: string, seg: string): string | undefined => [join(dir, `${seg}.rs`), join(dir, `${seg}/mod.rs`)].find((f) => have.has(f));
    const rootOf = (crateDir: string) => [join(crateDir, 'src/lib.rs'), join(crateDir, 'src/main.rs')].find((f) => have.has(f));
    for (const parts of m.rustPaths) {
      const [head, ...rest] = parts;
      if (RUST_ROOTS.has(head!)) continue;
      const bases: [string, string[]][] = crates.has(head!)
        ? [[crates.get(head!)!, rest]]
        : ['crate', 'self', 'super'].includes(head!) || /^[a-z_][a-z0-9_]*$/.test(head!)
          ? [...crates.values()].map((d): [string, string[]] => [d, ['crate', 'self', 'super'].includes(head!) ? rest : parts])
          : [];
      const found: ModuleTarget[] = [];
      for (const [crateDir, segs] of bases) {
        let dir = join(crateDir, 'src');
        let file = rootOf(crateDir);
        let i = 0;
        for (; i < segs.length; i++) {
          const next = moduleIn(dir, segs[i]!);
          if (!next) break;
          file = next;
          dir = join(dir, segs[i]!);
        }
        // A path that is not under this crate's modules at all (only its first segment was guessed as a module) says nothing.
        if (!file || (!crates.has(head!) && i === 0)) continue;
        const left = segs.slice(i);
        found.push({
          files: [file],
          ...(left[0] ? { member: left[0] } : {}),
          ...(left[1] ? { submember: left[1] } : {}),
          under: dir,
          why: `path ${parts.join('::')}`,
        });
      }
      if (found.length && found.length <= 3) out.push(...found);
    }
  }

  // Go: a go.mod's module path is its folder; an import path below it is a package folder.
  if (m.goImports.length) {
    const modules: [string, string][] = [];
    for (const p of manifests('go.mod')) {
      const mod = /^\s*module\s+(\S+)/m.exec(read(p));
      if (mod) modules.push([mod[1]!.replace(/["']/g, ''), dirOf(p)]);
    }
    modules.sort((a, b) => b[0].length - a[0].length);
    for (const imp of m.goImports) {
      const mod = modules.find(([name]) => imp === name || imp.startsWith(`${name}/`));
      if (!mod) continue;
      const folder = join(mod[1], imp.slice(mod[0].length + 1));
      const files = paths.filter((p) => dirOf(p) === folder && p.endsWith('.go') && !p.endsWith('_test.go'));
      if (files.length) out.push({ files, why: `import ${imp}` });
    }
  }

  // JavaScript/TypeScript: workspace packages by name, and tsconfig path aliases.
  if (m.jsImports.length) {
    const packages = new Map<string, string>();
    for (const p of manifests('package.json')) {
      try {
        const name = (JSON.parse(read(p)) as { name?: unknown }).name;
        if (typeof name === 'string' && !packages.has(name)) packages.set(name, dirOf(p));
      } catch {
        // Not JSON: no package.
      }
    }
    const aliases: [string, string[]][] = [];
    for (const p of manifests('tsconfig.json')) {
      try {
        const cfg = JSON.parse(read(p).replace(/\/\*[\s\S]*?\*\/|(?<![:"'\w])\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1')) as { compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> } };
        const base = join(dirOf(p), (cfg.compilerOptions?.baseUrl ?? '.').replace(/^\.\/?/, '').replace(/\/$/, ''));
        for (const [k, v] of Object.entries(cfg.compilerOptions?.paths ?? {})) if (Array.isArray(v)) aliases.push([k, v.map((t) => join(base, String(t).replace(/^\.\//, '')))]);
      } catch {
        // Not JSON even without comments: no aliases.
      }
    }
    const fileFor = (rel: string): string | undefined => {
      const stem = rel.replace(/\/$/, '').replace(/\.(?:[cm]?js|jsx)$/, '');
      for (const c of [stem, ...JS_EXT.map((e) => `${stem}${e}`), ...JS_EXT.map((e) => `${stem}/index${e}`)]) if (have.has(c)) return c;
      return undefined;
    };
    for (const { spec, names } of m.jsImports) {
      const cands: string[] = [];
      for (const [name, dir] of [...packages].sort((a, b) => b[0].length - a[0].length)) {
        if (spec !== name && !spec.startsWith(`${name}/`)) continue;
        const sub = spec.slice(name.length + 1);
        if (sub) for (const root of ['', 'src', 'lib', 'source', 'esm']) cands.push(join(join(dir, root), sub));
        break;
      }
      for (const [pattern, targets] of aliases) {
        const star = pattern.indexOf('*');
        const hit = star < 0 ? spec === pattern : spec.startsWith(pattern.slice(0, star)) && spec.endsWith(pattern.slice(star + 1));
        if (!hit) continue;
        const mid = star < 0 ? '' : spec.slice(star, spec.length - (pattern.length - star - 1));
        for (const t of targets) cands.push(t.replace('*', mid));
      }
      const file = cands.map(fileFor).find((f) => f !== undefined);
      if (file) out.push({ files: [file], ...(names[0] && names.length === 1 ? { member: names[0] } : {}), why: `import '${spec}'` });
    }
  }
  return out;
}

/**
 * A dotted name read through Java/Kotlin packages (`com.acme.json.Json.fromJson` → `…/com/acme/json/Json.java`
 * and its member) or a Go package qualifier (`queue.Push` → the Go files of a folder named `queue`).
 */
export function resolveQualified(parts: readonly string[], paths: readonly string[]): ModuleTarget | undefined {
  const cls = parts.findIndex((p) => /^[A-Z]/.test(p));
  if (cls >= 2 && parts.slice(0, cls).every((p) => /^[a-z_][a-z0-9_]*$/.test(p))) {
    const rel = parts.slice(0, cls + 1).join('/');
    const files = paths.filter((p) => /\.(java|kt|scala|groovy)$/.test(p) && (p.replace(/\.\w+$/, '') === rel || p.replace(/\.\w+$/, '').endsWith(`/${rel}`)));
    if (files.length && files.length <= 3) return { files, ...(parts[cls + 1] ? { member: parts[cls + 1] } : {}), why: `package ${parts.slice(0, cls + 1).join('.')}` };
  }
  if (parts.length === 2 && /^[a-z][a-z0-9_]*$/.test(parts[0]!) && /^[A-Z]\w*$/.test(parts[1]!)) {
    const dirs = new Set<string>();
    for (const p of paths) if (p.endsWith('.go') && !p.endsWith('_test.go') && dirOf(p).split('/').pop() === parts[0]) dirs.add(dirOf(p));
    if (dirs.size && dirs.size <= 3) {
      const files = paths.filter((p) => p.endsWith('.go') && !p.endsWith('_test.go') && dirs.has(dirOf(p)));
      return { files, member: parts[1]!, why: `package ${parts[0]}` };
    }
  }
  return undefined;
}
