// Server-Sent Events for `GET /v1/events`: what the ledger commits (decisions, escalations, resolutions), as it
// commits it, to a bounded number of subscribers. A bounded ring of recent events lets a client that reconnects
// with Last-Event-ID resume without loss or repetition; one that fell further behind is told to reload (`reset`).
import { randomBytes } from 'node:crypto';

/** What an event says happened. */
export type ServiceEventType = 'decision' | 'escalation' | 'resolution';

interface StoredEvent {
  seq: number;
  type: ServiceEventType;
  run_id: string;
  payload: unknown;
  /** The SSE frame, built once, when first sent (nobody listening: never). */
  frame?: string;
}

function frameOf(epoch: string, e: StoredEvent): string {
  return (e.frame ??= `id: ${epoch}.${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e.payload)}\n\n`);
}

/** The part of a Node response a subscriber needs. */
export interface EventSink {
  write(chunk: string): boolean;
  end(): void;
  destroy(): void;
  readonly writableLength: number;
}

export interface EventHubOptions {
  /** Recent events kept for Last-Event-ID resumption (default 10,000). */
  capacity?: number;
  /** Subscribers at once (default 256); more are refused. */
  maxSubscribers?: number;
  /** Bytes a subscriber may have waiting unsent before it is dropped (default 1 MiB). */
  maxPendingBytes?: number;
  /** Heartbeat comment interval in ms (default 15 s); 0 turns it off. */
  heartbeatMs?: number;
}

interface Subscriber {
  sink: EventSink;
  run: string | undefined;
}

/** The outcome of a subscription request. */
export type Subscribed = { ok: true; unsubscribe: () => void } | { ok: false; reason: string };

/** Fan-out of committed events to SSE subscribers, bounded in memory and in subscribers. */
export class EventHub {
  /** Distinguishes this server's event ids from another process's (or an earlier run's): those cannot resume. */
  readonly epoch = randomBytes(4).toString('hex');
  private readonly capacity: number;
  private readonly maxSubscribers: number;
  private readonly maxPendingBytes: number;
  private readonly ring: StoredEvent[] = [];
  private head = 0;
  private next = 1;
  private readonly subscribers = new Set<Subscriber>();
  private readonly heartbeat: NodeJS.Timeout | undefined;
  /** Subscribers dropped for falling behind (for metrics and tests). */
  dropped = 0;

  constructor(options: EventHubOptions = {}) {
    this.capacity = options.capacity ?? 10_000;
    this.maxSubscribers = options.maxSubscribers ?? 256;
    this.maxPendingBytes = options.maxPendingBytes ?? 1024 * 1024;
    const every = options.heartbeatMs ?? 15_000;
    if (every > 0) {
      this.heartbeat = setInterval(() => this.broadcast(': heartbeat\n\n', undefined), every);
      this.heartbeat.unref();
    }
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Records an event and sends it to every subscriber it concerns. Cheap when nobody listens. */
  publish(type: ServiceEventType, run_id: string, payload: unknown): void {
    const event: StoredEvent = { seq: this.next++, type, run_id, payload };
    if (this.ring.length < this.capacity) this.ring.push(event);
    else {
      this.ring[this.head] = event;
      this.head = (this.head + 1) % this.capacity;
    }
    if (this.subscribers.size > 0) this.broadcast(frameOf(this.epoch, event), run_id);
  }

  /**
   * Adds a subscriber, first sending what it missed after `lastEventId` (same tick as joining, so nothing published
   * in between is lost or doubled), or a `reset` event when that id is not resumable (another server or too old).
   */
  subscribe(sink: EventSink, options: { run?: string; lastEventId?: string } = {}): Subscribed {
    if (this.subscribers.size >= this.maxSubscribers) return { ok: false, reason: `${this.maxSubscribers} subscribers already (the limit)` };
    const sub: Subscriber = { sink, run: options.run };
    sink.write(`retry: 2000\n: subscribed${options.run ? ` to run ${options.run}` : ''}\n\n`);
    if (options.lastEventId !== undefined && options.lastEventId !== '') {
      const missed = this.since(options.lastEventId);
      if (missed === undefined) {
        sink.write(`event: reset\ndata: ${JSON.stringify({ reason: `cannot resume after ${options.lastEventId}: reload the state, then follow the stream` })}\n\n`);
      } else {
        for (const e of missed) if (sub.run === undefined || sub.run === e.run_id) sink.write(frameOf(this.epoch, e));
      }
    }
    this.subscribers.add(sub);
    return { ok: true, unsubscribe: () => this.subscribers.delete(sub) };
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const s of this.subscribers) s.sink.end();
    this.subscribers.clear();
  }

  /** Events after `lastEventId` in order, or undefined when they are not all still held. */
  private since(lastEventId: string): StoredEvent[] | undefined {
    const m = /^([0-9a-f]{8})\.(\d{1,15})$/.exec(lastEventId);
    if (!m || m[1] !== this.epoch) return undefined;
    const after = Number(m[2]);
    if (after >= this.next) return undefined;
    const ordered = this.ring.length < this.capacity ? this.ring : [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    const oldest = ordered[0]?.seq ?? this.next;
    if (after < oldest - 1) return undefined;
    return ordered.filter((e) => e.seq > after);
  }

  private broadcast(frame: string, run_id: string | undefined): void {
    for (const s of this.subscribers) {
      if (run_id !== undefined && s.run !== undefined && s.run !== run_id) continue;
      // A subscriber that cannot keep up is dropped rather than buffered without end; it may reconnect and resume.
      if (s.sink.writableLength > this.maxPendingBytes) {
        this.subscribers.delete(s);
        this.dropped++;
        s.sink.destroy();
        continue;
      }
      s.sink.write(frame);
    }
  }
}
