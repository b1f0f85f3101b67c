import type { ReportRoot } from './report-request.js';

/** Anything with a `route(request)`: a kernel, or what a transport calls. */
export interface Routes<D> {
  route(request: unknown): Promise<D>;
}

/**
 * A kernel whose requests may carry `reports` (read under `where.root` into `forensics` before routing). The
 * reading code loads with the first request that has reports: a transport without them pays nothing. With no
 * root, a request with `reports` gets INVALID_REPORT (`not_enabled`).
 */
export function withReports<D>(kernel: Routes<D>, where: ReportRoot): Routes<D> {
  return {
    route: async (request: unknown) => {
      if (typeof request !== 'object' || request === null || !('reports' in request)) return kernel.route(request);
      const { resolveReportRequest } = await import('./report-request.js');
      return kernel.route(await resolveReportRequest(request, where));
    },
  };
}
