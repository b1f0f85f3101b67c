// Regenerates schemas/*.schema.json from the zod models listed in src/contracts/schema-registry.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SCHEMA_REGISTRY } from '../src/schema-registry.js';
import { renderJsonSchema } from '../src/contracts/json-schema.js';

const outDir = path.resolve(process.argv[2] ?? 'schemas');
mkdirSync(outDir, { recursive: true });
for (const entry of SCHEMA_REGISTRY) {
  writeFileSync(path.join(outDir, `${entry.name}.schema.json`), renderJsonSchema(entry));
}
console.log(`wrote ${SCHEMA_REGISTRY.length} schemas to ${outDir}`);
