// Regenerates schemas/*.schema.json from the zod models listed in src/contracts/schema-registry.ts, and
// schemas/openapi.json (the HTTP API of `navkernel serve`) from the same models.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SCHEMA_REGISTRY } from '../src/schema-registry.js';
import { renderJsonSchema } from '../src/contracts/json-schema.js';
import { renderOpenApi } from '../src/service/openapi.js';

const outDir = path.resolve(process.argv[2] ?? 'schemas');
mkdirSync(outDir, { recursive: true });
for (const entry of SCHEMA_REGISTRY) {
  writeFileSync(path.join(outDir, `${entry.name}.schema.json`), renderJsonSchema(entry));
}
writeFileSync(path.join(outDir, 'openapi.json'), renderOpenApi());
console.log(`wrote ${SCHEMA_REGISTRY.length} schemas and openapi.json to ${outDir}`);
