import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
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
  }
});
