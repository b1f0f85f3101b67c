// A run pinned to a flow version the kernel never loaded and its store does not keep is refused with
// FLOW_VERSION_UNKNOWN (issue 39): it is never routed on a version it did not start with.
import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../src/contracts/index.js';
import { createKernel, defineFlows, MemoryStore } from '../../src/kernel/index.js';

const flow = (review: string): FlowInput[] => [
  {
    flow: 'ship',
    charter: { goal: 'Ship a post', key_question: 'Is it ready?' },
    steps: [
      { id: 'draft', agent: 'writer', next: review },
      { id: review, agent: 'editor', next: 'publish' },
      { id: 'publish', agent: 'publisher', terminal: true },
    ],
  },
];

describe('a run pinned to a version nobody keeps', () => {
  it('is refused with FLOW_VERSION_UNKNOWN naming the version, and nothing is recorded', async () => {
    const store = new MemoryStore();
    const v1 = defineFlows(flow('review'));
    const first = createKernel({ flows: v1, store });
    expect((await first.route({ run_id: 'r1', flow: 'ship', step_completed: 'draft', status: 'VERIFIED' })).next_step_id).toBe('review');
    // Another kernel on the same store loads a changed flow set; the MemoryStore keeps no flow versions.
    const v2 = defineFlows(flow('critique'));
    const second = createKernel({ flows: v2, store });
    const refused = await second.route({ run_id: 'r1', flow: 'ship', step_completed: 'review', status: 'VERIFIED' }).then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(refused?.code).toBe('FLOW_VERSION_UNKNOWN');
    expect(refused?.message).toContain(v1.hash.slice(0, 12));
    expect((await second.runState('r1'))?.seq).toBe(1);
    // New runs take the version loaded now.
    expect((await second.route({ run_id: 'r2', flow: 'ship', step_completed: 'draft', status: 'VERIFIED' })).next_step_id).toBe('critique');
    await first.close();
    await second.close();
  });
});
