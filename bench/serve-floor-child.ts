// `node dist/bench/serve-floor-child.js`: the HTTP floor of the serve bench. The same Fastify, configured as
// `navkernel serve` configures it (no logger, same body limit and timeouts), answering POST /v1/route with a fixed
// decision after parsing the JSON body: no kernel, no ledger, no validation, no metrics. What autocannon reaches
// against it on the same machine in the same run bounds what serve can reach. Prints the address as serve does.
import Fastify from 'fastify';

const decision = JSON.stringify({
  decision: 'CONTINUE',
  next_step_id: 'build-step-2',
  tier: 1,
  rule: 'success',
  reason: 'build-step-1 reported VERIFIED',
  confidence: 1,
  needs_human: false,
  warnings: [],
  rejected: [],
  iteration: 1,
  seq: 1,
  ts: '2026-01-01T00:00:00.000Z',
});

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, requestTimeout: 30_000, keepAliveTimeout: 5_000, return503OnClosing: true, forceCloseConnections: 'idle' });
app.post('/v1/route', async (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(decision));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stderr.write(`serve-floor: listening on ${address}\n`);
process.once('SIGTERM', () => void app.close());
