import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LanguageModel, LlmGenerateRequest } from '../../src/llm/index.js';
import { BIN } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

/** A small TypeScript repository written to a fresh temp dir (real files for the real repo map). */
export const REPO_FILES: Record<string, string> = {
  'README.md': '# Shop\n\nA tiny shop: carts, discounts, auth.\n\n## Usage\n\nRun it.\n',
  'docs/api.md': '# API\n\n## Cart\n\nAdd items.\n\n## Auth\n\nLog in.\n',
  'src/index.ts': "export { Cart } from './cart/cart.js';\nexport { login } from './auth/login.js';\n",
  'src/cart/cart.ts': [
    "import { applyDiscount, type Discount } from './discount.js';",
    "import { formatPrice } from '../util/format.js';",
    '',
    '/** A shopping cart. */',
    'export class Cart {',
    '  private items: { sku: string; price: number; qty: number }[] = [];',
    '  add(sku: string, price: number, qty = 1): void {',
    '    this.items.push({ sku, price, qty });',
    '  }',
    '  /** Total after the discount. */',
    '  total(discount?: Discount): number {',
    '    const sum = this.items.reduce((s, i) => s + i.price * i.qty, 0);',
    '    return discount ? applyDiscount(sum, discount) : sum;',
    '  }',
    '  describe(): string {',
    '    return formatPrice(this.total());',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/cart/discount.ts': [
    'export interface Discount { percent: number; minTotal: number }',
    '',
    '/** Applies a percentage discount above a minimum total. */',
    'export function applyDiscount(total: number, d: Discount): number {',
    '  if (total < d.minTotal) return total;',
    '  return total - (total * d.percent) / 100;',
    '}',
    '',
  ].join('\n'),
  'src/auth/login.ts': [
    "import { createSession } from './session.js';",
    '',
    '/** Logs a user in and returns a session token. */',
    'export function login(user: string, password: string): string {',
    "  if (!password) throw new Error('no password');",
    '  return createSession(user).token;',
    '}',
    '',
  ].join('\n'),
  'src/auth/session.ts': 'export interface Session { user: string; token: string }\n\nexport function createSession(user: string): Session {\n  return { user, token: `t-${user}` };\n}\n',
  'src/util/format.ts': 'export function formatPrice(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n',
  'tests/cart.test.ts': "import { Cart } from '../src/cart/cart.js';\n\nconst c = new Cart();\nc.add('a', 100);\nconsole.log(c.total());\n",
  'tests/login.test.ts': "import { login } from '../src/auth/login.js';\n\nconsole.log(login('u', 'p'));\n",
};

export function makeRepo(): string {
  const root = tempDir('nk-explorer-repo-');
  for (const [rel, text] of Object.entries(REPO_FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** A fresh temporary directory, removed after the test file. */
export function tmpDir(prefix = 'nk-explorer-'): string {
  return tempDir(prefix);
}

/** A clock that advances one second per reading, from the seed example's time. */
export function stepClock(start = '2025-12-31T10:30:00.000Z'): () => Date {
  let t = Date.parse(start);
  return () => {
    const d = new Date(t);
    t += 1000;
    return d;
  };
}

/** Wraps a model so a test can read every request it was sent. */
export function recording(model: LanguageModel): LanguageModel & { requests: LlmGenerateRequest[] } {
  const requests: LlmGenerateRequest[] = [];
  return {
    provider: model.provider,
    modelId: model.modelId,
    ...(model.pricingModelId ? { pricingModelId: model.pricingModelId } : {}),
    replay: true,
    requests,
    generate: (req) => {
      requests.push(req);
      return model.generate(req);
    },
  };
}

/** All text of a request, as the scripted model's `when` sees it. */
export const promptText = (req: LlmGenerateRequest) => req.messages.map((m) => m.content).join('\n');

export const update = (config_diff: unknown, reasoning = 'zoom') => ({ tool_calls: [{ name: 'update_flight_plan', input: { config_diff, reasoning } }] });
export const finalize = (reasoning = 'the map holds the cart and its discount') => ({ tool_calls: [{ name: 'finalize_context', input: { reasoning } }] });

/** The built CLI as an asynchronous child (the fake provider server lives in the test process, so no spawnSync). */
export interface CliChild {
  stdout: string;
  stderr: string;
  write(s: string): void;
  /** Resolves once stderr has received `text` `count` times in total. */
  stderrHas(text: string, count?: number): Promise<void>;
  kill(): void;
  done: Promise<number | null>;
}

/** Provider keys and base URLs cleared, so a test sets only what it means to. */
export const NO_KEYS = { ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_API_KEY: '', ANTHROPIC_BASE_URL: '', GOOGLE_GEMINI_BASE_URL: '' };

export function startCli(args: string[], env: Record<string, string> = {}): CliChild {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...NO_KEYS, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const c: CliChild = {
    stdout: '',
    stderr: '',
    write: (s) => child.stdin.write(s),
    stderrHas: (text, count = 1) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (c.stderr.split(text).length - 1 >= count) {
            child.stderr.off('data', check);
            resolve();
          }
        };
        child.stderr.on('data', check);
        child.on('close', () => reject(new Error(`exited before stderr had ${JSON.stringify(text)} x${count}:\n${c.stderr}`)));
        check();
      }),
    kill: () => child.kill('SIGKILL'),
    done: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (c.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (c.stderr += d));
  return c;
}

/** Runs the CLI to its end with `stdin`, returning its exit code and output. */
export async function runCli(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const c = startCli(args, env);
  c.write(stdin);
  const code = await c.done;
  return { code, stdout: c.stdout, stderr: c.stderr };
}
