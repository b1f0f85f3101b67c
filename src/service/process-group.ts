// Child processes started as the leader of a process group of their own, stopped as a whole: what they start
// (a wrapper's real server, a worker) goes with them. Shared by startServe() and startCoProcess().
import type { ChildProcess } from 'node:child_process';

/** Signals the process group whose leader `child` is (spawned with `detached: true`); a gone group is no error. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    // A negative pid signals the process group.
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Stops `child`'s group when this process exits without having stopped it (a script that forgot close()). */
export function stopGroupOnExit(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of live) signalGroup(c, 'SIGTERM');
  });
}

/**
 * Stops a group: SIGTERM now, SIGKILL after `timeoutMs`, then SIGKILL to anything of the group still there once
 * the leader is gone. Resolves with the leader's exit code (null when a signal ended it).
 */
export async function stopGroup(child: ChildProcess, exited: Promise<number | null>, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) {
    signalGroup(child, 'SIGKILL');
    return child.exitCode;
  }
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), timeoutMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
    signalGroup(child, 'SIGKILL');
  }
}
