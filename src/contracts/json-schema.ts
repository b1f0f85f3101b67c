import { z } from 'zod';
import type { RegisteredSchema } from './registered-schema.js';

/** The JSON Schema document for a registered model, with a stable `$id`. Deterministic: same model, same bytes. */
export function toPublishedJsonSchema(entry: RegisteredSchema): Record<string, unknown> {
  const body = z.toJSONSchema(entry.schema, { io: entry.io, unrepresentable: 'any' }) as Record<string, unknown>;
  return { $id: `https://navkernel.dev/schemas/${entry.name}.schema.json`, title: entry.name, ...body };
}

/** Serialised form written to `schemas/<name>.schema.json`. */
export function renderJsonSchema(entry: RegisteredSchema): string {
  return JSON.stringify(toPublishedJsonSchema(entry), null, 2) + '\n';
}
