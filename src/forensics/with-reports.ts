import type { ReportRoot } from './report-request.js';

/** Anything with a `route(request, options?)`: a kernel, or what a transport calls (options, e.g. the principal, pass through). */
export interface Routes<D, O = { principal?: string | null }> {
  route(request: unknown, options?: O): Promise<D>;
}

/**
 * A kernel whose requests may carry `reports` (read under `where.root` into `forensics` before routing). The
 * reading code loads with the first request that has reports: a transport without them pays nothing. With no
 * root, a request with `reports` gets INVALID_REPORT (`not_enabled`). An `options.signal` (a transport's time limit)
 * stops the reading when aborted. The reports of one request share one byte budget (`maxTotalBytes`).
 */
export function withReports<D, O>(kernel: Routes<D, O>, where: ReportRoot): Routes<D, O> {
  return {
    route: async (request: unknown, options?: O) => {
      if (typeof request !== 'object' || request === null || !('reports' in request)) return kernel.route(request, options);
      const { resolveReportRequest } = await import('./report-request.js');
      // A transport's abort signal (its request timed out) stops the reading, and nothing is routed after it.
      const signal = (options as { signal?: AbortSignal } | undefined)?.signal;
      const resolved = await resolveReportRequest(request, signal ? { ...where, signal } : where);
      signal?.throwIfAborted();
      return kernel.route(resolved, options);
    },
  };
}
