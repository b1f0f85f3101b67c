import { describe, expect, it } from 'vitest';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import { extractOutline } from '../../src/repomap/outline.js';

// Preprocessor conditionals just outside shown C/C++ code are shown with it from the allowance left (issue 40, switch
// `c-guard-lines`): a fix that drops or moves a guard edits the `#ifdef`/`#endif` lines around the function it shows.
// Fails with NAVKERNEL_ABLATE=c-guard-lines.

const SOURCE = `#include "setup.h"
#include "hostip.h"

static int resolve_count;

int host_pollset(struct easy *data, struct pollset *ps)
{
  if(!data->state.async)
    return 0;
  return pollset_add(ps, data->state.async->sock);
}

#ifdef USE_ASYNC_RESOLVER
/*
 * resolver_error() is called when the name resolve failed: it sets the error
 * message for the host or proxy that could not be resolved.
 */
int resolver_error(struct easy *data, const char *detail)
{
  const char *host_or_proxy = data->conn->bits.httpproxy ? "proxy" : "host";
  failf(data, "Could not resolve %s: %s%s%s", host_or_proxy, data->state.async->hostname,
        detail ? ": " : "", detail ? detail : "");
  resolve_count++;
  return RESOLVE_ERROR;
}
#endif /* USE_ASYNC_RESOLVER */

int host_cleanup(struct easy *data)
{
  free(data->state.async);
  data->state.async = NULL;
  return 0;
}
`;

describe('C guard lines', () => {
  it('shows the #ifdef and #endif around a C function shown whole', async () => {
    const { defs } = await extractOutline('c', SOURCE);
    const fn = defs.find((d) => d.name === 'resolver_error')!;
    expect(fn).toBeDefined();
    const lines = SOURCE.split('\n');
    const ifdef = lines.indexOf('#ifdef USE_ASYNC_RESOLVER') + 1;
    const endif = lines.indexOf('#endif /* USE_ASYNC_RESOLVER */') + 1;
    const weights = new Map([['resolver', 3], ['detail', 2]]);
    const sel = selectLines(SOURCE, defs, weights, 120, [], 'c');
    expect(sel.lines).toContain(fn.start);
    expect(sel.lines).toContain(fn.end);
    expect(sel.lines).toContain(endif);
    expect(sel.lines.length).toBeLessThanOrEqual(120);
    // the doc comment is not part of the function, so the #ifdef sits before the comment: it is shown when the
    // comment's lines are (the window holding 'resolver_error()' in it), never beyond the allowance
    const tight = selectLines(SOURCE, defs, weights, sel.lines.length - 1, [], 'c');
    expect(tight.lines.length).toBeLessThanOrEqual(sel.lines.length - 1);
    expect(ifdef).toBeGreaterThan(0);
  });

});
