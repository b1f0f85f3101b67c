// Routes a request stream the way a runner driving many runs does: each run's requests in order, `conc` runs at once.
import type { RouteRequest } from '../src/contracts/index.js';
import type { Kernel } from '../src/kernel/index.js';

/** Routes each run's requests in order, `conc` runs at once, through `kernel`; the latency of each route in µs. */
export async function routeRuns(kernel: Kernel, requests: readonly RouteRequest[], conc: number): Promise<number[]> {
  const byRun = new Map<string, RouteRequest[]>();
  for (const r of requests) (byRun.get(r.run_id) ?? byRun.set(r.run_id, []).get(r.run_id)!).push(r);
  const runs = [...byRun.values()];
  const lat: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      for (let i = next++; i < runs.length; i = next++) {
        for (const r of runs[i]!) {
          const t = process.hrtime.bigint();
          await kernel.route(r);
          lat.push(Number(process.hrtime.bigint() - t) / 1000);
        }
      }
    }),
  );
  return lat;
}
