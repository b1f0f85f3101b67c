import { readdirSync, readFileSync } from 'node:fs';

/** Processes of a process group that still run (zombies left for an init that never reaps them do not run). */
export function runningInGroup(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let fields: string[];
    try {
      fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(')').at(-1)!.trim().split(' ');
    } catch {
      continue;
    }
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(entry));
  }
  return out;
}

/** Waits until `check()` holds (a safety-net limit only: no test depends on the machine's speed). */
export async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
