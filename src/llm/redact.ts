/** Replaces every occurrence of each secret (at least 8 characters long) by `[REDACTED]`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 8) out = out.split(s).join('[REDACTED]');
  }
  return out;
}

/** The same for any JSON value: strings are redacted at every depth. */
export function redactValue<T>(value: T, secrets: readonly (string | undefined)[]): T {
  if (!secrets.some((s) => s && s.length >= 8)) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactSecrets(k, secrets)] = redactValue(v, secrets);
    return out as T;
  }
  return value;
}

/** Secrets of the environment that must never leave navkernel: provider API keys. */
export function environmentSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'GEMINI_API_KEY', 'GOOGLE_API_KEY']
    .map((k) => env[k])
    .filter((v): v is string => typeof v === 'string' && v.length >= 8);
}
