import type { z } from 'zod';

/** A published model: `schemas/<name>.schema.json` is generated from `schema` (see src/schema-registry.ts). */
export interface RegisteredSchema {
  name: string;
  schema: z.ZodType;
  /** 'input' for documents users write (defaults optional), 'output' for documents navkernel writes. */
  io: 'input' | 'output';
}
