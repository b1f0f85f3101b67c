// `node dist/bench/first-call-child.js REPO TASK CACHE_DIR`: a long-lived process's first navigation of a repository
// with an empty cache (what `navkernel mcp` or a library caller pays on a new repository): CPU and wall from the call
// to its answer, then until the caches it holds back are written (see src/repomap/cache-writes.ts). Prints JSON.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { navigate } from '../src/navigator/index.js';

const [repo, task, cacheDir] = process.argv.slice(2);
if (!repo || !task || !cacheDir) throw new Error('usage: first-call-child.js REPO TASK CACHE_DIR');
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const c0 = cpu();
const w0 = performance.now();
const outcome = await navigate({ task, repo_root: repo }, { cacheDir });
const answer = { cpu_ms: cpu() - c0, wall_ms: performance.now() - w0 };
await nextTurn();
const written = { cpu_ms: cpu() - c0, wall_ms: performance.now() - w0 };
process.stdout.write(JSON.stringify({ exit: outcome.exit, answer, written }) + '\n');
