import type { Parser as TapParser } from 'tap-parser';
import { ReportError } from './report-error.js';
import type { ForensicsCollector } from './summary.js';

interface Assert {
  ok: boolean;
  name?: string;
  fullname?: string;
  skip?: unknown;
  todo?: unknown;
  diag?: Record<string, unknown> | null;
}

/**
 * TAP 13/14 (node --test, prove, tap), streamed through tap-parser. Leaf tests are counted; a parent whose only
 * failure is its subtests' (node's `failureType: subtestsFailed`) is not counted again, but a parent that failed
 * on its own (a hook) is, as an error. A stream with no plan or fewer tests than planned is `truncated`; a bail-out counts as an error.
 */
export async function readTap(file: string, chunks: AsyncIterable<string>, sink: ForensicsCollector): Promise<void> {
  const { Parser } = await import('tap-parser');
  let complete: { plan?: { start?: number | null; end?: number | null; skipAll?: boolean }; count?: number; bailout?: unknown } | undefined;
  const parser: TapParser = new Parser({ passes: false } as never, (r) => void (complete = r as never));
  const attach = (p: TapParser) => {
    let afterChild = false;
    p.on('child', (c: TapParser) => {
      afterChild = true;
      attach(c);
    });
    p.on('assert', (r: Assert) => {
      const parent = afterChild;
      afterChild = false;
      if (r.skip || r.todo) return parent ? undefined : sink.testSkipped();
      if (r.ok) return parent ? undefined : sink.testPassed();
      const diag = r.diag ?? {};
      const failureType = typeof diag.failureType === 'string' ? diag.failureType : undefined;
      if (parent && failureType === 'subtestsFailed') return;
      const location = typeof diag.location === 'string' ? /^(.*):(\d+):\d+$/.exec(diag.location) : null;
      const error = typeof diag.error === 'string' ? diag.error : typeof diag.message === 'string' ? diag.message : undefined;
      const type = typeof diag.name === 'string' ? diag.name : undefined;
      sink.testFailed({
        kind: failureType === 'hookFailed' || (parent && failureType !== 'testCodeFailure') ? 'error' : 'failure',
        ...(r.fullname || r.name ? { name: r.fullname || r.name! } : {}),
        ...(location ? { file: location[1]!, line: Number(location[2]) } : {}),
        ...(type ? { type } : {}),
        ...(error ? { message: type && !error.startsWith(type) ? `${type}: ${error}` : error } : r.name ? { message: r.name } : {}),
        detail: failureType === 'hookFailed' ? 'before hook failed' : '',
      });
    });
  };
  attach(parser);
  for await (const chunk of chunks) {
    if (!parser.write(chunk)) await new Promise<void>((resolve) => parser.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => {
    parser.once('complete', () => resolve());
    parser.end();
  });
  const plan = complete?.plan;
  if (complete?.bailout) {
    // A bail-out is a result (the run stopped), not a broken report.
    sink.testFailed({ kind: 'error', name: 'Bail out!', message: `Bail out! ${String(complete.bailout)}` });
    return;
  }
  if (!plan || typeof plan.end !== 'number' || plan.end < 0) throw new ReportError(file, 'truncated', 'no TAP plan (`1..N`): the report was cut off or is not TAP');
  if (!plan.skipAll && (complete?.count ?? 0) < plan.end - (plan.start ?? 1) + 1) throw new ReportError(file, 'truncated', `the plan says ${plan.end} tests, the report has ${complete?.count ?? 0}`);
  sink.tests.seen = true;
}
