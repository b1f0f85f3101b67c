import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import type { confinedFs } from './confined-fs.js';

/** The largest object read (a commit): anything larger is not a commit worth counting. */
const MAX_OBJECT_BYTES = 1024 * 1024;
/** Delta chains longer than this are refused (git's own default depth is 50). */
const MAX_DELTA_DEPTH = 100;

type Fs = ReturnType<typeof confinedFs>['promises'];

/** One pack: its index's fan-out table read, both files open for positional reads. */
interface Pack {
  idx: FileHandle;
  pack: FileHandle;
  fanout: Uint32Array;
  count: number;
}

/** A commit's parents and committer time (seconds). */
export interface CommitInfo {
  parents: string[];
  time: number;
}

/**
 * Reads commits from a repository's object store (loose objects and version-2 pack indexes, deltas applied),
 * with positional reads: a pack is never loaded whole, so a repository's size does not become this process's
 * memory. Read-only; every file goes through the confined file system. Alternates are not followed.
 */
export class ObjectReader {
  private packs: Promise<Pack[]> | undefined;
  private readonly idBytes: number;

  constructor(
    private readonly fs: Fs,
    private readonly objects: string,
    objectFormat: 'sha1' | 'sha256' = 'sha1',
  ) {
    this.idBytes = objectFormat === 'sha256' ? 32 : 20;
  }

  async commit(oid: string): Promise<CommitInfo> {
    const { type, body } = await this.object(oid, 0);
    if (type !== 'commit') throw new Error('not a commit');
    const head = body.toString('utf8', 0, Math.min(body.length, 64 * 1024));
    const parents: string[] = [];
    let time = 0;
    for (const line of head.split('\n')) {
      if (!line) break;
      if (line.startsWith('parent ')) parents.push(line.slice(7).trim());
      else if (line.startsWith('committer ')) time = Number(/ (\d+) [-+]\d{4}$/.exec(line)?.[1] ?? 0);
    }
    return { parents, time };
  }

  async close(): Promise<void> {
    const packs = await this.packs?.catch(() => []);
    await Promise.all((packs ?? []).flatMap((p) => [p.idx.close(), p.pack.close()]));
  }

  private async object(oid: string, depth: number): Promise<{ type: string; body: Buffer }> {
    if (!new RegExp(`^[0-9a-f]{${this.idBytes * 2}}$`).test(oid)) throw new Error('not an object id');
    const loose = await this.loose(oid);
    if (loose) return loose;
    for (const pack of await this.openPacks()) {
      const offset = await this.find(pack, oid);
      if (offset !== undefined) return this.packed(pack, offset, depth);
    }
    throw new Error('object not found');
  }

  private async loose(oid: string): Promise<{ type: string; body: Buffer } | undefined> {
    const file = path.join(this.objects, oid.slice(0, 2), oid.slice(2));
    const raw = await this.fs.readFile(file, undefined, MAX_OBJECT_BYTES + 1024).catch(() => undefined);
    if (!raw) return undefined;
    const data = inflateSync(raw as Buffer, { maxOutputLength: MAX_OBJECT_BYTES + 64 });
    const nul = data.indexOf(0);
    const [type] = data.toString('latin1', 0, nul).split(' ');
    return { type: type!, body: data.subarray(nul + 1) };
  }

  private openPacks(): Promise<Pack[]> {
    this.packs ??= (async () => {
      const dir = path.join(this.objects, 'pack');
      const names = ((await this.fs.readdir(dir).catch(() => [])) as string[]).filter((n) => n.endsWith('.idx')).sort();
      const out: Pack[] = [];
      for (const name of names) {
        const idx = await this.fs.open(path.join(dir, name)).catch(() => undefined);
        if (!idx) continue;
        const pack = await this.fs.open(path.join(dir, name.replace(/\.idx$/, '.pack'))).catch(() => undefined);
        if (!pack) {
          await idx.close();
          continue;
        }
        const head = Buffer.alloc(8 + 256 * 4);
        await idx.read(head, 0, head.length, 0);
        // Version 2 only (`\377tOc`, 2): what git has written since 2007.
        if (head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) {
          await Promise.all([idx.close(), pack.close()]);
          continue;
        }
        const fanout = new Uint32Array(256);
        for (let i = 0; i < 256; i++) fanout[i] = head.readUInt32BE(8 + i * 4);
        out.push({ idx, pack, fanout, count: fanout[255]! });
      }
      return out;
    })();
    return this.packs;
  }

  /** The object's offset in the pack: the names sharing its first byte read in one go, searched in memory. */
  private async find(pack: Pack, oid: string): Promise<number | undefined> {
    const id = Buffer.from(oid, 'hex');
    const first = id[0]!;
    const lo = first === 0 ? 0 : pack.fanout[first - 1]!;
    const hi = pack.fanout[first]!;
    if (hi <= lo) return undefined;
    const namesAt = 8 + 256 * 4;
    const names = Buffer.alloc((hi - lo) * this.idBytes);
    await pack.idx.read(names, 0, names.length, namesAt + lo * this.idBytes);
    let a = 0;
    let b = hi - lo;
    while (a < b) {
      const mid = (a + b) >> 1;
      const c = names.compare(id, 0, this.idBytes, mid * this.idBytes, (mid + 1) * this.idBytes);
      if (c === 0) {
        const n = lo + mid;
        const offsetsAt = namesAt + pack.count * this.idBytes + pack.count * 4;
        const word = Buffer.alloc(4);
        await pack.idx.read(word, 0, 4, offsetsAt + n * 4);
        const small = word.readUInt32BE(0);
        if (!(small & 0x80000000)) return small;
        const large = Buffer.alloc(8);
        await pack.idx.read(large, 0, 8, offsetsAt + pack.count * 4 + (small & 0x7fffffff) * 8);
        return Number(large.readBigUInt64BE(0));
      }
      if (c > 0) b = mid;
      else a = mid + 1;
    }
    return undefined;
  }

  private async packed(pack: Pack, offset: number, depth: number): Promise<{ type: string; body: Buffer }> {
    if (depth > MAX_DELTA_DEPTH) throw new Error('delta chain too long');
    const head = Buffer.alloc(32);
    const { bytesRead } = await pack.pack.read(head, 0, head.length, offset);
    let p = 0;
    let byte = head[p++]!;
    const typeCode = (byte >> 4) & 7;
    let size = byte & 15;
    for (let shift = 4; byte & 0x80; shift += 7) {
      if (p >= bytesRead) throw new Error('malformed pack');
      byte = head[p++]!;
      size += (byte & 0x7f) * 2 ** shift;
    }
    if (size > MAX_OBJECT_BYTES) throw new Error('object too large');
    let base: Promise<{ type: string; body: Buffer }> | undefined;
    if (typeCode === 6) {
      // OFS_DELTA: the base lies a (peculiarly encoded) distance before this object.
      byte = head[p++]!;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = head[p++]!;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      base = this.packed(pack, offset - distance, depth + 1);
    } else if (typeCode === 7) {
      // REF_DELTA: the base is named by its id.
      const ref = Buffer.alloc(this.idBytes);
      await pack.pack.read(ref, 0, this.idBytes, offset + p);
      p += this.idBytes;
      base = this.object(ref.toString('hex'), depth + 1);
    }
    // Deflate never grows data by more than a few bytes per 16 KiB block: size + 1 KiB holds the whole stream.
    const chunk = Buffer.alloc(size + 1024);
    const got = await pack.pack.read(chunk, 0, chunk.length, offset + p);
    const data = inflateSync(chunk.subarray(0, got.bytesRead), { maxOutputLength: size + 64 });
    if (base) {
      const b = await base;
      return { type: b.type, body: applyDelta(b.body, data) };
    }
    const type = ({ 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' } as Record<number, string>)[typeCode];
    if (!type) throw new Error('malformed pack');
    return { type, body: data };
  }
}

/** git's delta format: the source and target sizes, then copy (from the source) and insert instructions. */
export function applyDelta(source: Buffer, delta: Buffer): Buffer {
  let p = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[p++]!;
      v += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80 && p < delta.length);
    return v;
  };
  if (varint() !== source.length) throw new Error('delta does not fit its base');
  const size = varint();
  if (size > MAX_OBJECT_BYTES) throw new Error('object too large');
  const out = Buffer.alloc(size);
  let o = 0;
  while (p < delta.length) {
    const op = delta[p++]!;
    if (op & 0x80) {
      let from = 0;
      let n = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) from |= delta[p++]! << (8 * i);
      for (let i = 0; i < 3; i++) if (op & (1 << (4 + i))) n |= delta[p++]! << (8 * i);
      from >>>= 0;
      if (n === 0) n = 0x10000;
      if (from + n > source.length || o + n > size) throw new Error('malformed delta');
      source.copy(out, o, from, from + n);
      o += n;
    } else if (op > 0) {
      if (o + op > size || p + op > delta.length) throw new Error('malformed delta');
      delta.copy(out, o, p, p + op);
      o += op;
      p += op;
    } else throw new Error('malformed delta');
  }
  if (o !== size) throw new Error('malformed delta');
  return out;
}
