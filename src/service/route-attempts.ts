// A route request that timed out must not be recorded afterwards: its client was told it failed (issue 35). Each
// route request is an attempt; the store the kernel records through asks the run's current attempt before the
// append. Given up before that point: the append is refused and nothing is recorded. Past it (the append began):
// the time limit no longer gives up, the route is recorded and answered. One thread: no race between the two.
import type { KernelStore, RouteRecord, RunState } from '../contracts/ports.js';

/**
 * One route (or resolution) request's handling. Cheap when nothing goes wrong: its AbortController is made only
 * when asked for.
 */
export class RouteAttempt {
  private controller: AbortController | undefined;
  private reason: Error | undefined;
  /** The store began recording it: from then on it is answered, not timed out. */
  private recording = false;

  /** Aborted when the attempt is given up: the report reading stops. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Gives the attempt up with `reason` unless it is being recorded already; true when given up. */
  giveUp(reason: Error): boolean {
    if (this.recording) return false;
    this.reason = reason;
    this.controller?.abort(reason);
    return true;
  }

  /** Throws the reason it was given up for, if it was. */
  throwIfGivenUp(): void {
    if (this.reason !== undefined) throw this.reason;
  }

  /** Called by the store just before the append: throws when given up, else marks it as being recorded. */
  claimAppend(): void {
    this.throwIfGivenUp();
    this.recording = true;
  }
}

/** The attempt under way for each run (a run's routes are handled one at a time, so one per run). */
export class RouteAttempts {
  private readonly byRun = new Map<string, RouteAttempt>();

  /** Runs `work` as `attempt` of `run_id`'s route. */
  run<T>(run_id: string, attempt: RouteAttempt, work: () => Promise<T>): Promise<T> {
    try {
      attempt.throwIfGivenUp();
    } catch (e) {
      return Promise.reject(e as Error);
    }
    this.byRun.set(run_id, attempt);
    const p = work();
    const clear = () => {
      if (this.byRun.get(run_id) === attempt) this.byRun.delete(run_id);
    };
    p.then(clear, clear);
    return p;
  }

  /** `inner`, whose appends are refused for a run whose attempt was given up. */
  gate(inner: KernelStore): KernelStore {
    return {
      loadRun: (run_id) => inner.loadRun(run_id),
      findByRequestId: (run_id, request_id) => inner.findByRequestId(run_id, request_id),
      append: (record: RouteRecord, state: RunState) => {
        try {
          this.byRun.get(record.run_id)?.claimAppend();
        } catch (e) {
          return Promise.reject(e as Error);
        }
        return inner.append(record, state);
      },
      close: () => inner.close(),
      // Without it the kernel never learns that a person resolved a run's escalation: the run stays refused.
      ...(inner.escalation ? { escalation: (id: string) => inner.escalation!(id) } : {}),
    };
  }
}
