import { describe, expect, it } from 'vitest';
import { configKeys } from '../../src/navigator/retrieval/evidence/resolvers/go-config-keys.js';
import { readIssue } from '../../src/navigator/retrieval/evidence/read-issue.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A Go job runner: the pool's settings are declared on a struct with yaml tags (pool/options.go), the dispatcher, the
// scheduler and the worker speak of jobs, workers, queues and retries far more often than the options file does. A
// long report about the pool's settings writes them as its YAML file has them, among many everyday words.
const REPO = {
  'go.mod': 'module example.com/jobs\n\ngo 1.21\n',
  'pool/options.go':
    'package pool\n\nimport "time"\n\n// Options configure a pool.\ntype Options struct {\n\tSize        int           `yaml:"size"`\n\tIdleReapInterval time.Duration `yaml:"idle_reap_interval"`\n\tDrainGrace  time.Duration `yaml:"drain_grace"`\n\tMaxBacklog  int           `yaml:"max_backlog"`\n}\n\n// withDefaults fills unset options.\nfunc (o Options) withDefaults() Options {\n\tif o.Size == 0 {\n\t\to.Size = 4\n\t}\n\treturn o\n}\n',
  'pool/dispatcher.go':
    'package pool\n\nimport "time"\n\n// drainBacklog drains the backlog of an idle dispatcher within its grace interval; the max size of the backlog is its size.\nfunc drainBacklog(o Options) time.Duration {\n\t// drain MaxBacklog jobs of the idle queue within DrainGrace, reap after IdleReapInterval\n\tif o.MaxBacklog > o.Size {\n\t\treturn o.DrainGrace + o.IdleReapInterval\n\t}\n\treturn o.IdleReapInterval\n}\n\n// Dispatcher hands jobs from the queue to the workers; a job that fails is retried by the worker that ran it.\ntype Dispatcher struct {\n\tqueue   chan Job\n\tworkers []*Worker\n}\n\n// Dispatch sends a job to the queue of the workers; when the queue is full the job waits.\nfunc (d *Dispatcher) Dispatch(job Job) {\n\td.queue <- job\n}\n\n// Job is a job of the queue, run by a worker; a failed job is retried.\ntype Job func() error\n',
  'pool/worker.go':
    'package pool\n\nimport "time"\n\n// An idle worker is reaped at the reap interval; at a drain the worker drains its backlog within the grace period, a max backlog of jobs waits.\nfunc reapIdle(o Options, backlog []Job) time.Duration {\n\t// reap the idle workers every IdleReapInterval, drain the backlog within DrainGrace, keep MaxBacklog jobs\n\tif len(backlog) > o.MaxBacklog {\n\t\treturn o.DrainGrace\n\t}\n\treturn o.IdleReapInterval + o.DrainGrace\n}\n\n// Worker runs the jobs of the queue one by one; a job that fails is retried, the worker stops when the queue is closed.\ntype Worker struct {\n\tjobs chan Job\n}\n\n// Run runs each job of the queue and retries a failed job once; the worker stops when its queue of jobs stops.\nfunc (w *Worker) Run() {\n\tfor job := range w.jobs {\n\t\tif err := job(); err != nil {\n\t\t\t_ = job()\n\t\t}\n\t}\n}\n',
  'scheduler/scheduler.go':
    'package scheduler\n\n// Scheduler starts jobs at their time and hands them to the queue of the workers; a job that fails waits for its retry.\ntype Scheduler struct {\n\tjobs []func() error\n}\n\n// Start starts the jobs of the queue at their time; the workers run them and retry a failed job.\nfunc (s *Scheduler) Start() {\n\tfor _, job := range s.jobs {\n\t\tgo job()\n\t}\n}\n',
  ...filler('queue', 'go', 8, (i) => `package queue\n\n// Part${i} moves jobs of the queue to a worker; the job is retried when the worker fails.\nfunc Part${i}(jobs []int) int {\n\treturn len(jobs) + ${i}\n}\n`),
};

const ISSUE = `Workers are never reaped and jobs pile up after a deploy

We run the job runner inside our API service. After each deploy the old workers keep running, the queue keeps growing, and jobs that were dispatched during the deploy are retried again and again until the pod is killed. The workers of the queue do not stop when the jobs stop, and the jobs keep waiting for the workers.

Our config file:

\`\`\`yaml
pool:
  size: 16
  idle_reap_interval: 30s
  drain_grace: 10s
  max_backlog: 5000
\`\`\`

Logs from the job runner while this happens:

\`\`\`
{"level":"warn","msg":"job retried","queue":"default","worker":7,"attempt":3}
{"level":"warn","msg":"job retried","queue":"default","worker":9,"attempt":4}
\`\`\`

Expected: idle workers are reaped and the jobs drain within the grace period of the config.`;

describe('Go config keys resolved to the struct declaring them (the go-config-keys resolver)', () => {
  it('reads the keys of a YAML or INI snippet and of a URL query, not those of one-line JSON records or output lines', () => {
    const keys = configKeys(readIssue(`${ISSUE}\n\n\`\`\`ini\nsessionidprefix = "app_"\n\`\`\`\n\n\`\`\`\npanic: runtime error\n\`\`\`\n\nURL: redis://cache:6379/0?read_timeout=0&pool_size=5`));
    expect(keys).toEqual(['pool', 'size', 'idle_reap_interval', 'drain_grace', 'max_backlog', 'sessionidprefix', 'read_timeout', 'pool_size']);
  });

  it('a long report whose YAML snippet holds the settings finds the options struct first (NAVKERNEL_ABLATE=go-config-keys leaves it below the files about jobs and workers)', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, ISSUE);
    expect(files[0]).toBe('pool/options.go');
    expect(JSON.stringify(outcome.artifacts)).toContain('config key \\"idle_reap_interval\\"');
  });

  it('a key with no tag finds the field of the same name, case and separators aside (MaxBacklog for max-backlog)', async () => {
    const untagged = (REPO['pool/options.go'] as string).replace(/ +`yaml:"[^"]+"`/g, '');
    const root = writeRepo({ ...REPO, 'pool/options.go': untagged });
    const { files } = await loadedFiles(root, ISSUE.replace(/idle_reap_interval/g, 'IdleReapInterval').replace(/max_backlog/g, 'max-backlog'));
    expect(files[0]).toBe('pool/options.go');
  });
});
