import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, routeHash, type ChainedFields } from '../../src/ledger/chain.js';

const fields: ChainedFields = {
  run_id: 'run-ü-1',
  seq: 7,
  flow: 'build',
  step: 'implement',
  request_id: null,
  request: '{"run_id":"run-ü-1","step_id":"implement","note":"naïve → 🚀"}',
  decision_json: '{"decision":"DETOUR","reason":"tests failed"}',
  state: '{"loops":{"implement":2}}',
  latency_us: 12.5,
  cost_usd: 0,
  llm_calls_json: '[]',
  kernel_version: '0.1.0',
  flows_hash: 'a'.repeat(64),
  ts: '2025-01-01T00:00:07.000Z',
};

/** The chain's definition as ledgers were first written: one sha256 update per `<UTF-16 length>:` and per field. */
function frameByFrame(prev: string, f: ChainedFields): string {
  const h = createHash('sha256');
  const parts = [
    prev, f.run_id, String(f.seq), f.flow, f.step, f.request_id ?? '\u0000', f.request, f.decision_json, f.state,
    String(f.latency_us), String(f.cost_usd), f.llm_calls_json, f.kernel_version, f.flows_hash, f.ts,
  ];
  for (const p of parts) h.update(`${p.length}:`).update(p);
  return h.digest('hex');
}

describe('routeHash', () => {
  it('hashes the same bytes as the frame-by-frame definition (non-ASCII text, null and set request_id)', () => {
    expect(routeHash(GENESIS_HASH, fields)).toBe(frameByFrame(GENESIS_HASH, fields));
    const withId = { ...fields, request_id: 'req-9' };
    const prev = routeHash(GENESIS_HASH, fields);
    expect(routeHash(prev, withId)).toBe(frameByFrame(prev, withId));
    expect(routeHash(prev, withId)).not.toBe(routeHash(prev, fields));
  });

  it('frames a principal after ts only when set (schema 7): without one, the same bytes as every route written before', () => {
    expect(routeHash(GENESIS_HASH, { ...fields, principal: null })).toBe(frameByFrame(GENESIS_HASH, fields));
    expect(routeHash(GENESIS_HASH, { ...fields, principal: undefined })).toBe(frameByFrame(GENESIS_HASH, fields));
    const by = { ...fields, principal: 'runner-ä' };
    const withFrame = createHash('sha256');
    const parts = [
      GENESIS_HASH, by.run_id, String(by.seq), by.flow, by.step, '\u0000', by.request, by.decision_json, by.state,
      String(by.latency_us), String(by.cost_usd), by.llm_calls_json, by.kernel_version, by.flows_hash, by.ts, by.principal,
    ];
    for (const p of parts) withFrame.update(`${p.length}:`).update(p);
    expect(routeHash(GENESIS_HASH, by)).toBe(withFrame.digest('hex'));
    expect(routeHash(GENESIS_HASH, by)).not.toBe(routeHash(GENESIS_HASH, fields));
    // An empty name is a frame too ("0:"), not the absence of one.
    expect(routeHash(GENESIS_HASH, { ...fields, principal: '' })).not.toBe(routeHash(GENESIS_HASH, fields));
  });
});
