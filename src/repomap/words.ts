/**
 * Splits text into lowercase word parts: on non-alphanumerics, snake_case, kebab-case and camelCase
 * boundaries (`parseHTTPRequest2` → parse, http, request, 2). Order kept, duplicates kept.
 */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[^A-Za-z0-9]+/)) {
    if (!raw) continue;
    const parts = raw
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])([0-9])/g, '$1 $2')
      .replace(/([0-9])([A-Za-z])/g, '$1 $2')
      .split(' ');
    for (const p of parts) if (p) out.push(p.toLowerCase());
  }
  return out;
}
