// Server-Sent Events for `GET /v1/events`: what the ledger commits (decisions, escalations, resolutions), as it
// commits it, to a bounded number of subscribers. A bounded ring of recent events lets a client that reconnects
// with Last-Event-ID resume without loss or repetition; one that fell further behind is told to reload (`reset`).
//
// Cost: until a subscriber has received an event id, no client can resume from one, so nothing is kept (the
// service does not even build the payload: `listening`). Events published within `batchMs` (10 ms: several group
// commits under load, one event when idle) go out together: each event is serialised once, and each subscriber
// gets one write for the whole batch, so 100 subscribers cost 100 writes per batch, not 100 per route.
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
  /** How long an event may wait to be sent with the ones after it, in ms (default 10). */
  batchMs?: number;
}

interface Subscriber {
  sink: EventSink;
  run: string | undefined;
  /** The last event it was given when it joined: later pending events only are its. */
  after: number;
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
  /** Events published but not yet written to the subscribers (sent together at the next turn of the loop). */
  private pending: StoredEvent[] = [];
  private flushing: NodeJS.Timeout | undefined;
  private readonly batchMs: number;
  /** Some subscriber has received an event id (from then on a client may come back with one: events are kept). */
  private resumable = false;
  /** Subscribers dropped for falling behind (for metrics and tests). */
  dropped = 0;

  constructor(options: EventHubOptions = {}) {
    this.capacity = options.capacity ?? 10_000;
    this.maxSubscribers = options.maxSubscribers ?? 256;
    this.maxPendingBytes = options.maxPendingBytes ?? 1024 * 1024;
    this.batchMs = options.batchMs ?? 10;
    const every = options.heartbeatMs ?? 15_000;
    if (every > 0) {
      this.heartbeat = setInterval(() => this.broadcast(': heartbeat\n\n'), every);
      this.heartbeat.unref();
    }
  }

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Whether a published event can reach anyone: a subscriber now, or one later that resumes (once any subscriber
   * has received an event id). When false, `publish` keeps nothing and the caller need not build the payload.
   */
  get listening(): boolean {
    return this.resumable || this.subscribers.size > 0;
  }

  /**
   * Records an event; every subscriber it concerns gets it within `batchMs` (or at `flush()`), with the other events
   * published meanwhile, in publication order.
   */
  publish(type: ServiceEventType, run_id: string, payload: unknown): void {
    const seq = this.next++;
    if (!this.listening) {
      // Nobody received an id of what the ring holds (it was never flushed to anyone): nobody can resume from it.
      if (this.ring.length > 0) (this.ring.length = 0), (this.head = 0);
      return;
    }
    const event: StoredEvent = { seq, type, run_id, payload };
    if (this.capacity > 0) {
      if (this.ring.length < this.capacity) this.ring.push(event);
      else {
        this.ring[this.head] = event;
        this.head = (this.head + 1) % this.capacity;
      }
    }
    if (this.subscribers.size > 0) {
      this.pending.push(event);
      this.flushing ??= setTimeout(() => this.flush(), this.batchMs).unref();
    }
  }

  /** Writes the pending events to their subscribers now: one write per subscriber, each event serialised once. */
  flush(): void {
    if (this.flushing) clearTimeout(this.flushing);
    this.flushing = undefined;
    const events = this.pending;
    if (events.length === 0) return;
    this.pending = [];
    const first = events[0]!.seq;
    let all: string | undefined;
    for (const s of this.subscribers) {
      let chunk = '';
      if (s.run === undefined && s.after < first) chunk = all ??= events.map((e) => frameOf(this.epoch, e)).join('');
      else for (const e of events) if (e.seq > s.after && (s.run === undefined || s.run === e.run_id)) chunk += frameOf(this.epoch, e);
      if (chunk !== '' && this.send(s, chunk)) this.resumable = true;
    }
  }

  /**
   * Adds a subscriber, first sending what it missed after `lastEventId` (same tick as joining, so nothing published
   * in between is lost or doubled), or a `reset` event when that id is not resumable (another server or too old).
   */
  subscribe(sink: EventSink, options: { run?: string; lastEventId?: string } = {}): Subscribed {
    if (this.subscribers.size >= this.maxSubscribers) return { ok: false, reason: `${this.maxSubscribers} subscribers already (the limit)` };
    const sub: Subscriber = { sink, run: options.run, after: this.next - 1 };
    // The run is a client's string: JSON-encoded, so no line break in it can end the comment and start a field.
    sink.write(`retry: 2000\n: subscribed${options.run !== undefined ? ` to run ${JSON.stringify(options.run)}` : ''}\n\n`);
    if (options.lastEventId !== undefined && options.lastEventId !== '') {
      const missed = this.since(options.lastEventId);
      if (missed === undefined) {
        sink.write(`event: reset\ndata: ${JSON.stringify({ reason: `cannot resume after ${options.lastEventId}: reload the state, then follow the stream` })}\n\n`);
      } else {
        // Pending events are in the ring already: this sends them, and the next flush does not send them again.
        for (const e of missed) if (sub.run === undefined || sub.run === e.run_id) sink.write(frameOf(this.epoch, e));
        if (missed.length > 0) this.resumable = true;
      }
    }
    this.subscribers.add(sub);
    return { ok: true, unsubscribe: () => this.subscribers.delete(sub) };
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    this.flush();
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

  private broadcast(frame: string): void {
    this.flush();
    for (const s of this.subscribers) this.send(s, frame);
  }

  /** Writes to one subscriber; false when it was dropped instead. */
  private send(s: Subscriber, chunk: string): boolean {
    // A subscriber that cannot keep up is dropped rather than buffered without end; it may reconnect and resume.
    if (s.sink.writableLength > this.maxPendingBytes) {
      this.subscribers.delete(s);
      this.dropped++;
      s.sink.destroy();
      return false;
    }
    s.sink.write(chunk);
    return true;
  }
}
