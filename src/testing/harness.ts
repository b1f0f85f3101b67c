// The harness each part's checks run in: a fresh location per test, every handle opened on it closed after the test
// and the location removed, whatever the test framework (vitest, jest, node:test: it takes their describe/it).
import type { KernelStore } from '../contracts/ports.js';

/** The test framework's functions the kit registers its checks with (vitest's, jest's or node:test's). */
export interface TestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>, timeout?: number): unknown;
}

/** One store location (a file, a database schema, a memory) that one or more handles open. */
export interface StoreLocation<S extends KernelStore = KernelStore> {
  /**
   * Opens a handle on the location, as another kernel process would. A store that cannot open a second handle on the
   * same data (an in-memory one) returns the same object each time.
   */
  open(): Promise<S>;
  /** Removes the location (temp files, the schema); called after every handle is closed. */
  cleanup?(): Promise<void>;
}

/** The store under test: its name in the test titles, and how to make a fresh, empty location. */
export interface StoreUnderTest<S extends KernelStore = KernelStore> {
  name: string;
  create(): Promise<StoreLocation<S>>;
}

/** One test's store: `fresh()` the first handle on a new location, `handle()` another one on it. */
export interface StoreSession<S extends KernelStore> {
  fresh(): Promise<S>;
  handle(): Promise<S>;
}

/** Per test, a time limit generous enough for a loaded machine; the kit never asserts on time. */
export const CHECK_TIMEOUT_MS = 120_000;

/** Registers `body` as a test that gets a session, and closes and removes what the session opened, pass or fail. */
export function check<S extends KernelStore>(api: TestApi, store: StoreUnderTest<S>, name: string, body: (session: StoreSession<S>) => Promise<void>): void {
  api.it(
    name,
    async () => {
      let location: StoreLocation<S> | undefined;
      const handles = new Set<S>();
      const handle = async (): Promise<S> => {
        if (!location) throw new Error('navkernel/testing: call fresh() before handle()');
        const h = await location.open();
        handles.add(h);
        return h;
      };
      try {
        await body({
          fresh: async () => {
            location = await store.create();
            return handle();
          },
          handle,
        });
      } finally {
        for (const h of handles) await h.close().catch(() => undefined);
        await location?.cleanup?.();
      }
    },
    CHECK_TIMEOUT_MS,
  );
}
