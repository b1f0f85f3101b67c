import { Option, type Command } from 'commander';
import { NavkernelError } from '../../contracts/index.js';
import { createService, serviceLedger } from '../../service/index.js';
import { addKernelOptions, loadCliFlows, type KernelCliOptions } from '../kernel-options.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';
import { addLlmOptions, arbiterFromFlags, type LlmFlags } from '../llm-options.js';

interface ServeOptions extends KernelCliOptions, LedgerCliOptions, LlmFlags {
  host: string;
  port: string;
  token?: string;
  maxBytes?: string;
  maxBodyBytes?: string;
  requestTimeoutMs: string;
  reportsRoot?: string;
}

function whole(flag: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new NavkernelError('INVALID_OPTION', `${flag} must be a whole number from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return n;
}

/** `navkernel serve`: the HTTP API under /v1 and the web UI at /. */
export function registerServeCommand(program: Command): void {
  const cmd = program
    .command('serve')
    .description('Serve the kernel and its ledger over HTTP (API under /v1, OpenAPI at /openapi.json) with the web UI at /')
    .option('--host <host>', 'address to listen on; anything but loopback needs --token', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8787')
    .option('--token <token>', 'bearer token required on /v1 (env NAVKERNEL_TOKEN); never logged', process.env.NAVKERNEL_TOKEN)
    .option('--max-bytes <n>', 'largest request body, in bytes, as `navkernel route --max-bytes` (default 1048576)')
    .addOption(new Option('--max-body-bytes <n>', 'the former name of --max-bytes').hideHelp())
    .option('--request-timeout-ms <ms>', 'time limit of one request', '30000')
    .option('--reports-root <dir>', 'read the report files a route request names in `reports` (under this folder only) into its forensics')
    .addHelpText('after', '\nSIGTERM or Ctrl-C stops accepting, finishes in-flight requests, then closes the ledger.');
  addLlmOptions(addLedgerOption(addKernelOptions(cmd), { durability: true })).action(async (opts: ServeOptions) => {
    const flows = await loadCliFlows(opts);
    const arbiter = await arbiterFromFlags(opts);
    const port = whole('--port', opts.port, 0, 65535);
    const ledger = serviceLedger(openCliLedger(opts, { create: true }));
    const service = createService({
      flows,
      ledger,
      ...(arbiter ? { arbiter } : {}),
      ...(opts.token ? { token: opts.token } : {}),
      bodyLimit: opts.maxBytes !== undefined ? whole('--max-bytes', opts.maxBytes, 1, 1 << 30) : opts.maxBodyBytes !== undefined ? whole('--max-body-bytes', opts.maxBodyBytes, 1, 1 << 30) : 1024 * 1024,
      requestTimeoutMs: whole('--request-timeout-ms', opts.requestTimeoutMs, 1, 3_600_000),
      ...(opts.reportsRoot ? { reportsRoot: opts.reportsRoot } : {}),
    });
    let address: string;
    try {
      address = await service.listen(opts.host, port);
    } catch (e) {
      await service.close();
      throw e;
    }
    process.stderr.write(`navkernel serve: listening on ${address} (UI ${address}/, API ${address}/v1, ledger ${ledger.location}${opts.token ? ', bearer token required' : ''})\n`);
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        process.stderr.write(`navkernel serve: ${signal}: finishing in-flight requests\n`);
        service.close().then(resolve, (e: unknown) => {
          process.stderr.write(`navkernel serve: close failed: ${e instanceof Error ? e.message : String(e)}\n`);
          process.exitCode = 1;
          resolve();
        });
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    process.stderr.write('navkernel serve: stopped\n');
  });
}
