import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { TurnReport } from '../contracts/explorer-report.js';
import { formatTurnReport } from './turn-report.js';

/** What the user can answer at a breakpoint. */
export type UserCommand =
  | { kind: 'continue' }
  | { kind: 'finalize' }
  | { kind: 'abort' }
  | { kind: 'set_tokens'; tokens: number }
  | { kind: 'set_usd'; usd: number }
  /** Carry on, with the user's words injected into the next prompt. */
  | { kind: 'feedback'; text: string };

/** A line read: a command, a request to display something, or a mistake. */
export type ParsedLine = UserCommand | { kind: 'show' } | { kind: 'plan' } | { kind: 'help' } | { kind: 'invalid'; message: string };

export const INTERACTIVE_HELP = `  y, yes, c, continue      run the next step
  n, no, f, finalize, Enter  stop and output the current context
  q, quit, abort           cancel without output
  feedback: TEXT           run the next step with TEXT given to the model (e.g. feedback: focus on src/auth)
  tokens N                 set the token budget of the map (raise or lower)
  usd X                    set the USD spending limit (raise or lower)
  show | plan | help       print the map | the FlightPlan | this help
`;

/** Parses one answer at a breakpoint. */
export function parseUserLine(line: string): ParsedLine {
  const s = line.trim();
  const lower = s.toLowerCase();
  if (['y', 'yes', 'c', 'continue'].includes(lower)) return { kind: 'continue' };
  if (['', 'n', 'no', 'f', 'finalize'].includes(lower)) return { kind: 'finalize' };
  if (['q', 'quit', 'abort', 'cancel'].includes(lower)) return { kind: 'abort' };
  if (['show', 'plan', 'help', '?'].includes(lower)) return { kind: lower === '?' ? 'help' : (lower as 'show' | 'plan' | 'help') };
  const feedback = /^(?:feedback|fb)\s*:\s*([\s\S]*)$/i.exec(s);
  if (feedback) {
    const text = feedback[1]!.trim();
    return text ? { kind: 'feedback', text: text.slice(0, 2000) } : { kind: 'invalid', message: 'feedback needs some text: feedback: <what the model should do>' };
  }
  const tokens = /^(?:t|tokens)\s*[= ]\s*([\d_,]+)$/i.exec(s);
  if (tokens) {
    const n = Number(tokens[1]!.replace(/[_,]/g, ''));
    return Number.isInteger(n) && n > 0 ? { kind: 'set_tokens', tokens: n } : { kind: 'invalid', message: 'tokens must be a positive integer' };
  }
  const usd = /^(?:usd|cost|cost-limit|\$)\s*[= ]?\s*\$?(\d+(?:\.\d+)?)$/i.exec(s);
  if (usd) {
    const x = Number(usd[1]);
    return x > 0 ? { kind: 'set_usd', usd: x } : { kind: 'invalid', message: 'the USD limit must be > 0' };
  }
  return { kind: 'invalid', message: `not understood: ${JSON.stringify(s)}` };
}

/** What a breakpoint can display on request. */
export interface BreakpointView {
  mapText(): string;
  planYaml(): string;
}

/** Asks the user at a breakpoint. Resolves to the command chosen; display requests are answered inside. */
export type AskUser = (report: TurnReport, view: BreakpointView) => Promise<UserCommand>;

/**
 * An `AskUser` over line streams (stdin/stderr for the CLI): prints the TurnReport and
 * `Continue exploration? [y/N/feedback: TEXT/tokens N/usd X/q/help]`, reads lines until one is a command. End of input finalizes.
 */
export function createLineAsker(input: Readable, output: Writable): AskUser & { close(): void } {
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (report: TurnReport, view: BreakpointView): Promise<UserCommand> => {
    output.write(formatTurnReport(report));
    for (;;) {
      output.write('Continue exploration? [y/N/feedback: TEXT/tokens N/usd X/q/help]: ');
      const next = await lines.next();
      if (next.done) {
        output.write('\n(end of input: finalizing)\n');
        return { kind: 'finalize' };
      }
      const parsed = parseUserLine(String(next.value));
      switch (parsed.kind) {
        case 'show':
          output.write(`${view.mapText()}\n`);
          break;
        case 'plan':
          output.write(view.planYaml());
          break;
        case 'help':
          output.write(INTERACTIVE_HELP);
          break;
        case 'invalid':
          output.write(`${parsed.message}\n${INTERACTIVE_HELP}`);
          break;
        default:
          return parsed;
      }
    }
  };
  return Object.assign(ask, { close: () => rl.close() });
}
