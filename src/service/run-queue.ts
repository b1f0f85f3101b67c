/**
 * Serialises work per key (a run id): the tasks of one run run one after another in arrival order, tasks of
 * different runs run in parallel. A failed task does not stop the ones queued behind it.
 */
export class RunQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Tasks queued or running. */
  get size(): number {
    return this.tails.size;
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key);
    const p = prev ? prev.then(task, task) : task();
    this.tails.set(key, p);
    const clear = () => {
      if (this.tails.get(key) === p) this.tails.delete(key);
    };
    p.then(clear, clear);
    return p;
  }
}
