import type { RouteWork, SignatureFacts } from './route-work.js';
import { deriveSignature } from './signatures.js';

/**
 * The signature facts of a route (memoised on the work). Every route that carries a failure signature is a
 * sighting, whichever tier decides it, so the "second sighting -> DETOUR" rule sees the run's real history.
 */
export function signatureFacts(w: RouteWork): SignatureFacts | null {
  if (w.signature !== undefined) return w.signature;
  const id = deriveSignature(w.request.forensics, w.flow.signatures);
  if (!id) return (w.signature = null);
  const key = `${w.loopKey}:${id}`;
  const prev = w.state.signatures[key];
  return (w.signature = { id, key, seen: (prev?.seen ?? 0) + 1, detours: prev?.detours ?? 0 });
}
