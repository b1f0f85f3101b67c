/**
 * Fake secrets of every shape the kernel must redact, built at run time (so the repository holds no string a
 * scanner would flag). None of them is a real credential.
 */
const rep = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);

export interface FakeSecret {
  name: string;
  /** The secret value that must never appear anywhere. */
  value: string;
  /** How it appears in forensic text. */
  inText: string;
}

export const SECRET_CORPUS: FakeSecret[] = [
  { name: 'anthropic full', value: `sk-ant-api03-${rep('Zx9Qw2Er7Ty', 93)}AA`, inText: '' },
  { name: 'anthropic short', value: `sk-ant-${rep('k3yV4lu3', 40)}`, inText: '' },
  { name: 'openai', value: `sk-proj-${rep('Ab12Cd34Ef', 48)}`, inText: '' },
  { name: 'google api key', value: `AIza${rep('SyD7xQ_3kLm9Pq', 35)}`, inText: '' },
  { name: 'github pat', value: `ghp_${rep('R4nd0mT0k3n', 36)}`, inText: '' },
  { name: 'github fine-grained', value: `github_pat_${rep('11AbCdEfGh_', 82)}`, inText: '' },
  { name: 'aws key id', value: `AKIA${rep('Q7W3E9R2T5Y8U1I4', 16)}`, inText: '' },
  { name: 'slack bot', value: `xoxb-${rep('1234567890', 12)}-${rep('abcdefABCDEF', 24)}`, inText: '' },
  { name: 'bearer', value: `${rep('eyDummyOpaqueT0ken', 40)}`, inText: '' },
  { name: 'private key', value: rep('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 200), inText: '' },
  { name: 'url password', value: `pa55w0rdXYZ${rep('q', 5)}`, inText: '' },
  { name: 'jwt', value: `eyJ${rep('hbGciOiJIUzI1NiJ9', 20)}.eyJ${rep('zdWIiOiIxMjM0NTY3ODkwIn0', 30)}.${rep('SflKxwRJSMeKKF2QT4fwpM', 43)}`, inText: '' },
];
for (const s of SECRET_CORPUS) {
  s.inText =
    s.name === 'bearer'
      ? `curl -H "Authorization: Bearer ${s.value}" https://api.example.com`
      : s.name === 'private key'
        ? `-----BEGIN PRIVATE KEY-----\n${s.value.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----`
        : s.name === 'url password'
          ? `could not connect to postgres://admin:${s.value}@db.internal:5432/app`
          : `Error: request failed with key ${s.value} (status 401)`;
}

/** Values of secret-named fields: redacted by name whatever they look like. */
export const NAMED_SECRETS = { api_key: 'plainvalue-1234', auth_token: 'short-tok-5678', client_secret: 'mysecretvalue9', password: 'hunter2hunter2' };
