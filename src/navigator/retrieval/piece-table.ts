import { identifierPiece } from './terms.js';

/**
 * `identifierPiece(text.slice(start, end))` without the slice: an open-addressing table keyed by the code
 * units in place (a hash over them, then a compare), so the millions of identifiers of a repository's text
 * allocate a string only the first time each is seen. One table a thread, emptied past MAX_ENTRIES.
 */
const MAX_ENTRIES = 1 << 19;
let mask = (1 << 16) - 1;
// Filled, so every table's arrays have one elements kind (a new, empty one would make V8 compile the lookup again).
let keys: (string | undefined)[] = new Array<string | undefined>(mask + 1).fill(undefined);
let pieces: string[] = new Array<string>(mask + 1).fill('');
let hashes = new Int32Array(mask + 1);
let used = 0;

/** FNV-1a over code units: the table's hash. A scanner may fold it in as it reads (`hashStep` from `HASH_START`). */
export const HASH_START = 0x811c9dc5 | 0;
export const hashStep = (h: number, c: number): number => Math.imul(h ^ c, 0x01000193);

function hashOf(text: string, start: number, end: number): number {
  let h = HASH_START;
  for (let i = start; i < end; i++) h = hashStep(h, text.charCodeAt(i));
  return h;
}

function sameAt(key: string, text: string, start: number, end: number): boolean {
  if (key.length !== end - start) return false;
  for (let k = 0, i = start; i < end; k++, i++) if (key.charCodeAt(k) !== text.charCodeAt(i)) return false;
  return true;
}

function place(key: string, piece: string, h: number): void {
  let slot = h & mask;
  while (keys[slot] !== undefined) slot = (slot + 1) & mask;
  keys[slot] = key;
  pieces[slot] = piece;
  hashes[slot] = h;
  used++;
}

function resize(size: number, keep: boolean): void {
  const [oldKeys, oldPieces, oldHashes] = [keys, pieces, hashes];
  mask = size - 1;
  keys = new Array<string | undefined>(size).fill(undefined);
  pieces = new Array<string>(size).fill('');
  hashes = new Int32Array(size);
  used = 0;
  if (keep) for (let s = 0; s < oldKeys.length; s++) if (oldKeys[s] !== undefined) place(oldKeys[s]!, oldPieces[s]!, oldHashes[s]!);
}

/** The index terms of the identifier or word `text[start, end)`, space-joined (see identifierPiece). */
export function pieceAt(text: string, start: number, end: number): string {
  return pieceAtHashed(text, start, end, hashOf(text, start, end));
}

/** `pieceAt` for a scanner that hashed `text[start, end)` as it read it (`h`: hashStep over its code units from HASH_START). */
export function pieceAtHashed(text: string, start: number, end: number, h: number): string {
  let slot = h & mask;
  for (let key = keys[slot]; key !== undefined; key = keys[slot]) {
    if (hashes[slot] === h && sameAt(key, text, start, end)) return pieces[slot]!;
    slot = (slot + 1) & mask;
  }
  // A copy, not a cut: V8 keeps a cut of 13 characters or more as a view of the whole text, so the table would hold
  // the text of every file whose long identifier it first saw (~30 MB of sympy's on one thread, to the end of the run).
  const cut = text.slice(start, end);
  const key = cut.length < 13 ? cut : (' ' + cut).slice(1);
  const piece = identifierPiece(key);
  if (used >= MAX_ENTRIES) resize(mask + 1, false);
  else if (2 * (used + 1) > mask + 1) resize(2 * (mask + 1), true);
  place(key, piece, h);
  return piece;
}
