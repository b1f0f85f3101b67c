// The UI's follower of GET /v1/events. EventSource cannot send an Authorization header, and the token must never
// go into a URL, so the stream is read with fetch; on a drop it reconnects with Last-Event-ID and so misses nothing.

export interface LiveEvent {
  type: string;
  data: unknown;
}

/** Follows the event stream until `stop()`; `onEvent` gets each event, `onReset` when the server cannot resume. */
export function followEvents(query: string, token: string | null, onEvent: (e: LiveEvent) => void, onReset: () => void): { stop(): void } {
  let stopped = false;
  let lastId: string | undefined;
  let controller: AbortController | undefined;

  const connect = async (): Promise<void> => {
    while (!stopped) {
      controller = new AbortController();
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (lastId) headers['last-event-id'] = lastId;
      try {
        const res = await fetch(`/v1/events${query}`, { headers, signal: controller.signal });
        if (res.ok && res.body) await read(res.body);
      } catch {
        // aborted or dropped: reconnect below unless stopped
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  };

  const read = async (body: ReadableStream<Uint8Array>): Promise<void> => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let type = '';
        let data = '';
        let id: string | undefined;
        for (const line of frame.split('\n')) {
          if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
          else if (line.startsWith('id: ')) id = line.slice(4);
        }
        if (id) lastId = id;
        if (type === 'reset') onReset();
        else if (type) onEvent({ type, data: JSON.parse(data) as unknown });
      }
    }
  };

  void connect();
  return {
    stop() {
      stopped = true;
      controller?.abort();
    },
  };
}
