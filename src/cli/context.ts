// The one thing a command is given besides its parsed options: where it prints, how it sets its exit code, the
// environment and working folder it reads. `main` makes one from the process (`processIo()`); a test makes one from
// strings (`captureIo()`) and calls `main` in its own process, so a command is tested as a function.
import { forTerminal, jsonLine } from './terminal-text.js';

/** A stream a command writes to: `process.stdout` or a test's buffer. */
export interface Writer {
  write(text: string): unknown;
  /** A terminal (progress bars, colours): false or absent for a pipe, a file or a test. */
  readonly isTTY?: boolean;
}

/** What a command may touch of the world outside its options. */
export interface CliIo {
  readonly stdout: Writer;
  readonly stderr: Writer;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** The process's own streams, environment and folder, read when used (the resident navigator swaps them per call). */
export function processIo(): CliIo {
  return {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get env() {
      return process.env;
    },
    get cwd() {
      return process.cwd();
    },
  };
}

/** Streams that keep what is written, for a test: `out()` and `err()` give it back. */
export function captureIo(overrides: Partial<Pick<CliIo, 'env' | 'cwd'>> = {}): CliIo & { out(): string; err(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    env: overrides.env ?? process.env,
    cwd: overrides.cwd ?? process.cwd(),
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

/** One CLI call's context: its IO and the exit code its command set. */
export class CliContext {
  private code: number | undefined;
  constructor(readonly io: CliIo) {}

  /** Text for a person on stdout, control characters shown as visible escapes (terminal-text.ts). */
  print(text: string): void {
    this.io.stdout.write(forTerminal(text));
  }

  /** Text for a person on stderr, made safe the same way. */
  printError(text: string): void {
    this.io.stderr.write(forTerminal(text));
  }

  /** One value as one line of JSON on stdout. */
  json(value: unknown): void {
    this.io.stdout.write(jsonLine(value));
  }

  /** Bytes written as they are (a Mermaid diagram, a completion script, an export): the command made them safe. */
  write(text: string): void {
    this.io.stdout.write(text);
  }

  /** Sets the exit code the call ends with (a finding: 1; a command's own outcome: 3 and up). */
  setExitCode(code: number): void {
    this.code = code;
  }

  /** Marks the outcome as a finding (exit 1) without throwing. */
  finding(): void {
    this.code = 1;
  }

  /** The exit code set so far (undefined: none, i.e. 0 unless an error is thrown). */
  get exitCode(): number | undefined {
    return this.code;
  }
}
