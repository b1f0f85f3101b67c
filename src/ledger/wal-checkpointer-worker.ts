// The WAL checkpointer's thread (wal-checkpointer.ts starts it): PASSIVE checkpoints of the ledger on a connection of
// its own, so the routing thread's commits never copy the WAL into the database. A pass that copied frames is followed
// by the next soon; idle passes back off. It never writes a row: a PASSIVE checkpoint takes no writer lock.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointerReply, CheckpointerRequest, CheckpointerWorkerData } from './wal-checkpointer.js';

const data = workerData as CheckpointerWorkerData;
const port = parentPort!;
const post = (m: CheckpointerReply) => port.postMessage(m);

/** ms between passes while the WAL grows, and the longest wait while it does not. */
const BUSY_MS = 100;
const IDLE_MS = 500;
/** Frames a pass may copy and still count as the last before the routing connection's tail checkpoint. */
const SMALL_TAIL = 256;

const db = new Database(data.file, { fileMustExist: true });
db.pragma(`busy_timeout = ${Math.max(0, Math.floor(data.busyTimeoutMs))}`);
// Checkpoints sync the WAL before copying it and the database after, as the routing connection's would.
db.pragma(`synchronous = ${data.synchronous}`);
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

let passes = 0;
let frames = 0;
let lastLog = 0;
let lastCheckpointed = 0;
let reported = -1;
let wait = BUSY_MS;
let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
let closing = 0;
let closed = false;

function pass(): void {
  timer = undefined;
  if (closed) return;
  let copied = 0;
  try {
    const r = passive.get() as { busy: number; log: number; checkpointed: number };
    if (r.busy === 0 && r.log >= 0) {
      // A shorter log than last time: the WAL restarted, everything checkpointed now is new.
      copied = r.log < lastLog ? r.checkpointed : Math.max(0, r.checkpointed - lastCheckpointed);
      lastLog = r.log;
      lastCheckpointed = r.checkpointed;
      if (copied > 0) {
        passes++;
        frames += copied;
      }
      // Everything up to the WAL's end at the start of this pass is in the database: the routing connection can
      // checkpoint what was appended since and restart the WAL.
      if (r.checkpointed === r.log && r.log >= data.resetFrames && r.log !== reported) {
        // Passes back to back first, each copying what the previous one's sync let through, so that the tail left
        // to the routing connection is what a few ms of routing appends.
        if (copied > SMALL_TAIL && closing < 4) {
          closing++;
          timer = setImmediate(pass);
          return;
        }
        closing = 0;
        reported = r.log;
        post({ type: 'caught-up', log: r.log });
      }
    }
  } catch (err) {
    post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
  wait = copied > 0 ? BUSY_MS : Math.min(IDLE_MS, wait * 2);
  timer = setTimeout(pass, wait);
}

port.on('message', (m: CheckpointerRequest) => {
  if (m.type === 'stats') post({ type: 'stats', id: m.id, passes, frames });
  else {
    closed = true;
    if (timer) {
      clearTimeout(timer as NodeJS.Timeout);
      clearImmediate(timer as NodeJS.Immediate);
    }
    db.close();
    port.close();
  }
});

timer = setTimeout(pass, 0);
