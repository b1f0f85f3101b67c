// Resolves Python imports (`from a.b import c`, `import a.b`) to the modules and definitions they name.
import type { IssueEvidence } from '../read-issue.js';
import { moduleFiles, resolveDottedPath } from './python-modules.js';
import { type Credit, type RepoView, creditFile } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

export function resolveImports(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  for (const imp of ev.imports) {
    if (!imp.names.length) {
      for (const f of moduleFiles(view, imp.module)) if (!f.path.endsWith('__init__.py')) out.push(creditFile(f.path, EVIDENCE_WEIGHTS.import * 0.3, `import ${imp.module}`));
      continue;
    }
    for (const name of imp.names) {
      const why = `from ${imp.module} import ${name}`;
      const sub = moduleFiles(view, `${imp.module}.${name}`);
      if (sub.length) {
        for (const f of sub) out.push(creditFile(f.path, EVIDENCE_WEIGHTS.import * 0.6, why));
        continue;
      }
      out.push(...(resolveDottedPath(view, ev.aliases, [...imp.module.split('.'), name], EVIDENCE_WEIGHTS.import, why) ?? []));
    }
  }
  return out;
}
