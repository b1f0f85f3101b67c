import type { ErrorCode } from '../../contracts/error-codes.js';
/**
 * The resident navigator's wire format: one JSON request line from the client, then JSON lines back. The server
 * acknowledges a request as soon as it has read it (`{"ack":true}`), so a client can tell a resident that is alive
 * but busy with another call from one that does not answer; then comes the call's output and its exit code.
 */

export const RESIDENT_PROTOCOL = 1;
/** The largest request line read (a task text can be long; nothing legitimate comes near this). */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export type ResidentRequest =
  | { v: typeof RESIDENT_PROTOCOL; op: 'navigate'; argv: string[]; cwd: string }
  | { v: typeof RESIDENT_PROTOCOL; op: 'status' }
  | { v: typeof RESIDENT_PROTOCOL; op: 'stop' };

export interface ResidentStatus {
  pid: number;
  socket: string;
  /** Calls answered since it started. */
  calls: number;
  started: string;
  idle_ms: number;
}

export type ResidentReply =
  | { ack: true }
  | { stdout: string; stderr: string; exit: number }
  | { status: ResidentStatus }
  | { stopping: true }
  | { error: { code: ErrorCode; message: string } };
