// The decisions.jsonl writer's thread (threaded-mirror.ts starts it): a JsonlMirror fed with the lines of
// committed decisions by the routing thread, reading the rows it repairs from over its own connection.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { JsonlMirror } from './jsonl-mirror.js';
import { MirrorLock } from './mirror-lock.js';
import { OFFROAD_ROWS_SQL } from './sql.js';
import type { OffroadRow } from '../contracts/ports.js';
import type { MirrorReply, MirrorRequest, MirrorWorkerData } from './threaded-mirror.js';

const data = workerData as MirrorWorkerData;
const port = parentPort!;
const post = (m: MirrorReply) => port.postMessage(m);

let db: Database.Database | undefined;
let offroad: Database.Statement | undefined;
const rows = (run_id: string): OffroadRow[] => {
  if (!offroad) {
    db = new Database(data.file, { fileMustExist: true });
    db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
    offroad = db.prepare(OFFROAD_ROWS_SQL);
  }
  return offroad.all(run_id) as OffroadRow[];
};
const lock = new MirrorLock(data.lockFile, data.busyTimeoutMs, data.file);
let runIds: string[] = [];
const mirror = new JsonlMirror(
  { exclusive: (fn) => lock.exclusive(fn), offroadRows: rows, runIds: () => runIds },
  data.runBase,
  // Blocking here costs the routing thread nothing: new files are made with synchronous calls, not on the thread pool.
  { onWarning: (warning) => post({ type: 'warning', warning }), createHere: true, ...(data.maxOpen !== undefined ? { maxOpen: data.maxOpen } : {}) },
);

// Messages that arrive while a drain writes wait for the next one: each drain writes every file once.
let draining = false;
let received = 0;
async function drain(): Promise<void> {
  draining = true;
  try {
    for (let seen = -1; seen !== received; ) {
      seen = received;
      await mirror.flush();
    }
    post({ type: 'idle', received });
  } finally {
    draining = false;
  }
}

port.on('message', (m: MirrorRequest) => {
  switch (m.type) {
    case 'ops': {
      received = m.batch;
      const ops = m.ops;
      for (let i = 0; i < ops.length; ) {
        if (ops[i] === 'L') {
          mirror.enqueue(ops[i + 1]!, ops[i + 2]!, ops[i + 3]!, Number(ops[i + 4]));
          i += 5;
        } else {
          mirror.check(ops[i + 1]!);
          i += 2;
        }
      }
      if (!draining) setImmediate(() => void drain());
      return;
    }
    case 'flush':
      void mirror.flush().then(() => post({ type: 'done', id: m.id }));
      return;
    case 'repair':
      runIds = m.runIds;
      void mirror.repair().then(
        (repairs) => post({ type: 'repaired', id: m.id, repairs }),
        (err: unknown) => post({ type: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    case 'close':
      void mirror.flush().then(() => {
        mirror.close();
        lock.close();
        db?.close();
        post({ type: 'done', id: m.id });
        port.close();
      });
      return;
  }
});
