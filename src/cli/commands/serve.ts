import { statSync, unwatchFile, watchFile } from 'node:fs';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFormerFlag, sharedOption } from '../shared-options.js';
import { NavkernelError } from '../../contracts/index.js';
import { createPrincipalDirectory, createService, serviceLedger, type PrincipalDirectory } from '../../service/index.js';
import { addKernelOptions, addStrictOption, flowsTarget, loadCliFlows, whereLine, type KernelCliOptions } from '../kernel-options.js';
import { BUNDLE_SUFFIX } from '../../ledger/archive/bundle.js';
import { listFlowFiles, loadFlows, type Kernel } from '../../kernel/index.js';
import { stat } from 'node:fs/promises';
import { isPostgresUrl } from '../../ledger/index.js';
import { addLedgerOption, openCliLedger, runsFolderFor, type LedgerCliOptions } from '../ledger-option.js';
import { addLlmOptions, arbiterFromFlags, type LlmFlags } from '../llm-options.js';
import { inLine } from '../terminal-text.js';

interface ServeOptions extends KernelCliOptions, LedgerCliOptions, LlmFlags {
  strict?: boolean;
  host: string;
  port: string;
  token?: string;
  principals?: string;
  maxBytes?: string;
  maxBodyBytes?: string;
  requestTimeoutMs: string;
  reportsRoot?: string;
  quiet?: boolean;
  allowHost: string[];
}

function whole(flag: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new NavkernelError('INVALID_OPTION', `${flag} must be a whole number from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return n;
}

/**
 * Where verify's and replay's worker threads open the ledger: the same --ledger, with its own connection. An
 * in-memory ledger or a run bundle cannot be opened twice: they are read on the event loop (undefined).
 */
function heavyReadsAt(ledger: string): { location: string; runBase?: string } | undefined {
  if (ledger === ':memory:' || ledger.endsWith(BUNDLE_SUFFIX)) return undefined;
  return isPostgresUrl(ledger) ? { location: ledger } : { location: ledger, runBase: runsFolderFor(ledger) };
}

/** An --allow-host value: a host name or [IPv6 address], without a port or a scheme. */
function hostName(v: string): string {
  if (!/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\[[0-9A-Fa-f:.]+\]$/.test(v)) {
    throw new NavkernelError('INVALID_OPTION', `--allow-host takes a host name without port or scheme (navkernel.example.com, [fd00::1]); got ${JSON.stringify(v)}`);
  }
  return v.toLowerCase();
}

/** `navkernel serve`: the HTTP API under /v1 and the web UI at /. */
export function registerServeCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('serve')
    .description('Serve the kernel and its ledger over HTTP (API under /v1, OpenAPI at /openapi.json) with the web UI at /')
    .option('--host <host>', 'address to listen on; anything but loopback needs --token', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8787')
    .addOption(sharedOption.token('bearer token required on /v1 (env NAVKERNEL_TOKEN); never logged', ctx.io.env.NAVKERNEL_TOKEN))
    .addOption(sharedOption.principals('principals with scopes (YAML or JSON: principals: [{name, scopes, token_sha256}]); reloaded when the file changes or on SIGHUP; see `navkernel token new`'))
    .option('--max-bytes <n>', 'largest request body, in bytes, as `navkernel route --max-bytes` (default 1048576)')
    .addOption(new Option('--max-body-bytes <n>', 'the former name of --max-bytes').hideHelp())
    .option('--request-timeout-ms <ms>', 'time limit of one request', '30000')
    .option('--reports-root <dir>', 'read the report files a route request names in `reports` (under this folder only) into its forensics')
    .option('-q, --quiet', 'do not print the start-up line (which ledger and flows) on stderr; the "listening on" line stays')
    .option('--allow-host <name>', 'a host name the Host header may name besides loopback ones (repeatable; e.g. behind a reverse proxy). Without a token only loopback names are answered (DNS rebinding)', (v: string, all: string[]) => [...all, hostName(v)], [] as string[])
    .addHelpText('after', '\nSIGTERM or Ctrl-C stops accepting, finishes in-flight requests, then closes the ledger.');
  // `--token` is a bearer token only: the principals file was `--tokens` (hidden, for a release).
  addFormerFlag(cmd, '--tokens <file>', 'principals');
  addLlmOptions(addStrictOption(addLedgerOption(addKernelOptions(cmd, {}, ctx.io), { durability: true }, ctx.io)), ctx.io).action(async (opts: ServeOptions) => {
    // A reports root that is not a folder would fail every request naming reports: say so at start-up instead.
    if (opts.reportsRoot !== undefined && !statSync(opts.reportsRoot, { throwIfNoEntry: false })?.isDirectory()) {
      throw new NavkernelError('INVALID_OPTION', `--reports-root ${JSON.stringify(opts.reportsRoot)} is not a folder`);
    }
    const flows = await loadCliFlows(opts, ctx);
    const arbiter = await arbiterFromFlags(opts, ctx.io.env);
    const port = whole('--port', opts.port, 0, 65535);
    const principals = opts.principals !== undefined ? createPrincipalDirectory({ tokensFile: opts.principals }) : undefined;
    const opened = openCliLedger(opts, { create: true });
    if (!opts.quiet) ctx.io.stderr.write(whereLine('serve', opened, flowsTarget(opts), flows.flows.keys()));
    const ledger = serviceLedger(opened);
    const heavy = heavyReadsAt(opts.ledger);
    const service = createService({
      flows,
      ledger,
      ...(arbiter ? { arbiter } : {}),
      ...(opts.token ? { token: opts.token } : {}),
      ...(principals ? { principals } : {}),
      bodyLimit: opts.maxBytes !== undefined ? whole('--max-bytes', opts.maxBytes, 1, 1 << 30) : opts.maxBodyBytes !== undefined ? whole('--max-body-bytes', opts.maxBodyBytes, 1, 1 << 30) : 1024 * 1024,
      requestTimeoutMs: whole('--request-timeout-ms', opts.requestTimeoutMs, 1, 3_600_000),
      ...(opts.reportsRoot ? { reportsRoot: opts.reportsRoot } : {}),
      ...(opts.allowHost.length ? { allowedHosts: opts.allowHost } : {}),
      ...(heavy ? { heavyReads: heavy } : {}),
      ...(opts.strict ? { strict: true } : {}),
    });
    let address: string;
    try {
      address = await service.listen(opts.host, port);
    } catch (e) {
      await service.close();
      throw e;
    }
    const auth = principals ? `, ${principals.size} principal(s) from ${opts.principals}` : opts.token ? ', bearer token required' : '';
    ctx.io.stderr.write(`navkernel serve: listening on ${address} (UI ${address}/, API ${address}/v1, ledger ${ledger.location}${auth})\n`);
    const stopWatching = principals && opts.principals ? watchTokens(ctx, principals, opts.principals) : () => {};
    const stopFlows = reloadFlowsOnHup(ctx, service.kernel, flowsTarget(opts));
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        ctx.io.stderr.write(`navkernel serve: ${signal}: finishing in-flight requests\n`);
        service.close().then(resolve, (e: unknown) => {
          ctx.io.stderr.write(`navkernel serve: close failed: ${e instanceof Error ? e.message : String(e)}\n`);
          ctx.setExitCode(1);
          resolve();
        });
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    stopWatching();
    stopFlows();
    ctx.io.stderr.write('navkernel serve: stopped\n');
  });
}

/**
 * Loads the flows again on SIGHUP, or when a flow file changes (polled every second: names, sizes and times), as
 * docs/changing-flows.md says: new runs get the new version, runs in flight stay on the version they started with.
 * Flows that no longer load keep the ones loaded and say why on stderr.
 */
function reloadFlowsOnHup(ctx: CliContext, kernel: Kernel, target: string): () => void {
  let loading = Promise.resolve();
  const reload = (why: string) => {
    loading = loading.then(async () => {
      try {
        const next = await loadFlows(target);
        const before = kernel.flows.hash;
        kernel.setFlows(next);
        const what = before === next.hash ? 'unchanged' : `new runs get version ${next.hash.slice(0, 12)} (was ${before.slice(0, 12)}); runs in flight keep theirs`;
        ctx.io.stderr.write(`navkernel serve: ${why}: flows reloaded from ${inLine(target)}: ${next.flows.size} flow(s), ${what}\n`);
      } catch (e) {
        ctx.io.stderr.write(`navkernel serve: ${why}: kept the flows already loaded: ${inLine(e instanceof Error ? e.message : String(e))}\n`);
      }
    });
  };
  const onHup = () => reload('SIGHUP');
  process.on('SIGHUP', onHup);
  // What the flow files look like now: a change to any of them (or one added or removed) is a reload.
  const look = async (): Promise<string> => {
    try {
      const files = await listFlowFiles(target);
      const stats = await Promise.all(files.map(async (f) => [f, await stat(f).then((st) => `${st.size}:${st.mtimeMs}`, () => '-')]));
      return JSON.stringify(stats);
    } catch {
      return 'unreadable';
    }
  };
  let last: Promise<string> = look();
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    void Promise.all([last, look()]).then(([before, now]) => {
      polling = false;
      if (now === before) return;
      last = Promise.resolve(now);
      reload('flow files changed');
    });
  }, 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    process.off('SIGHUP', onHup);
  };
}

/**
 * Reloads the principals when the tokens file changes (polled, so an editor's write-and-rename is seen too) or on
 * SIGHUP. A file that no longer parses keeps the principals already loaded and says why on stderr (never a token:
 * the file holds only hashes).
 */
function watchTokens(ctx: CliContext, principals: PrincipalDirectory, file: string): () => void {
  const reload = (why: string) => {
    try {
      principals.reload();
      ctx.io.stderr.write(`navkernel serve: ${why}: ${principals.size} principal(s) from ${file}\n`);
    } catch (e) {
      ctx.io.stderr.write(`navkernel serve: ${why}: kept the principals already loaded: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  };
  const onChange = (cur: { mtimeMs: number; size: number }, prev: { mtimeMs: number; size: number }) => {
    if (cur.mtimeMs !== prev.mtimeMs || cur.size !== prev.size) reload('tokens file changed');
  };
  const onHup = () => reload('SIGHUP');
  watchFile(file, { interval: 250, persistent: false }, onChange);
  process.on('SIGHUP', onHup);
  return () => {
    unwatchFile(file, onChange);
    process.off('SIGHUP', onHup);
  };
}
