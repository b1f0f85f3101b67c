import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { renderJsonSchema, schemasDir } from '../../src/contracts/index.js';
import { SCHEMA_REGISTRY } from '../../src/schema-registry.js';

describe('published JSON Schemas', () => {
  for (const entry of SCHEMA_REGISTRY) {
    it(`schemas/${entry.name}.schema.json matches its zod model (run \`npm run schemas\` after changing a model)`, () => {
      const file = path.join(schemasDir(), `${entry.name}.schema.json`);
      expect(existsSync(file), `${file} is missing`).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(renderJsonSchema(entry));
    });
    // compileValidator skips ajv's meta-schema check at run time (start-up): it is made here instead.
    it(`schemas/${entry.name}.schema.json is a valid JSON Schema 2020-12 document`, () => {
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      const ok = ajv.validateSchema(JSON.parse(readFileSync(path.join(schemasDir(), `${entry.name}.schema.json`), 'utf8')) as object);
      expect(ajv.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });
  }
});
