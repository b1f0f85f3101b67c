// `node dist/bench/coprocess-child.js LEDGER on|off`: the co-process of `navkernel route` (serveCoProcess over stdin
// and stdout, the charters' flows, validation and redaction on, a SQLite ledger with durability normal), with the
// decisions.jsonl mirror on (its default: on its own thread) or off. `navkernel route` has no switch for the mirror;
// this child is the same loop with one, so the short-runs bench measures the mirror's cost against its floor.
import path from 'node:path';
import { createKernel, loadFlows } from '../src/kernel/index.js';
import { openLedger } from '../src/ledger/index.js';
import { packageRoot } from '../src/package-root.js';
import { serveCoProcess } from '../src/cli/route-coprocess.js';
import { runsFolderFor } from '../src/cli/ledger-option.js';

const [file, mirror] = process.argv.slice(2);
if (!file || (mirror !== 'on' && mirror !== 'off')) throw new Error('usage: coprocess-child.js LEDGER on|off');
const ledger = openLedger(file, { jsonl: mirror === 'on', runBase: runsFolderFor(file) });
const kernel = createKernel({ flows: await loadFlows(path.join(packageRoot(), 'charters')), store: ledger });
await serveCoProcess(kernel, process.stdin, process.stdout);
await kernel.close();
await ledger.close();
