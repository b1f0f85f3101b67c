// navkernel/testing run as a store author runs it: the kit's checks, part by part, on every store we ship — the
// memory store (its kernel part), SQLite, and PostgreSQL when a server is configured (DATABASE_URL).
import { describe, it } from 'vitest';
import { MemoryStore } from '../../src/kernel/index.js';
import { storeConformance } from '../../src/testing/index.js';
import { STORE_FACTORIES } from './factories.js';

storeConformance({ describe, it }, { name: 'MemoryStore', create: async () => {
  const store = new MemoryStore();
  return { open: async () => store };
} }, { parts: ['KernelStore'] });

for (const factory of STORE_FACTORIES) {
  storeConformance({ describe, it }, {
    name: factory.name,
    create: async () => {
      const loc = await factory.create();
      return { open: () => loc.open(), cleanup: () => loc.cleanup() };
    },
  });
}
