// A server-sent events reader as the HTML standard parses a stream (lines end at CR, LF or CRLF; a blank line
// dispatches; `:` starts a comment), over node:http: what a browser's EventSource would make of the bytes.
import http from 'node:http';

export interface SseEvent {
  type: string;
  data: string;
  id: string | undefined;
}

/** Parses a whole stream text into the events an EventSource would dispatch. */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  let type = '';
  let data: string[] = [];
  let id: string | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) out.push({ type: type || 'message', data: data.join('\n'), id });
      type = '';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  return out;
}

/** GETs `url` and collects the body until `until(text)` holds or `ms` pass, then disconnects. */
export function readStream(url: string, options: { headers?: Record<string, string>; ms?: number; until?: (text: string) => boolean } = {}): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: options.headers ?? {} }, (res) => {
      let text = '';
      const finish = () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text });
      };
      const timer = setTimeout(finish, options.ms ?? 2000);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (options.until?.(text)) finish();
      });
      res.on('end', finish);
    });
    req.on('error', reject);
  });
}
