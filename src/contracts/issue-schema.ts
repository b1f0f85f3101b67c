import { z } from 'zod';
import type { IssueData } from './errors.js';
import { ISSUE_CODES, ISSUE_CODE_LIST, type IssueCode } from './issue-codes.js';

const limit = { limit: z.number() };
const suggestion = z.string().optional().describe('The nearest known name, when one is close (the did-you-mean)');

/** The data of each issue code that has some, as zod shapes: the schema form of IssueData (errors.ts; the type makes both list the same codes). */
const DATA: { [C in keyof IssueData]-?: z.ZodRawShape } = {
  required: { field: z.string().describe('The missing field') },
  unknown_property: { field: z.string().describe('The field that is not allowed'), suggestion, allowed: z.array(z.string()).optional().describe('Every allowed field') },
  misspelt_field: { field: z.string().describe('The field the kernel does not read'), suggestion: z.string().describe('The field it probably meant') },
  enum: { allowed: z.array(z.unknown()).describe('The allowed values'), suggestion },
  type: { expected: z.string().describe('The JSON type(s) expected') },
  minimum: limit,
  maximum: limit,
  exclusiveMinimum: limit,
  exclusiveMaximum: limit,
  minLength: limit,
  maxLength: limit,
  minItems: limit,
  maxItems: limit,
  pattern: { pattern: z.string() },
  too_large: { limit: z.number().describe('Bytes for a size, levels for a depth') },
  duplicate_flow: { flow: z.string(), defined_in: z.string().describe('The file that defined it first') },
  duplicate_step: { step: z.string() },
  unknown_flow: { flow: z.string(), suggestion },
  unknown_step: { step: z.string(), suggestion },
  unreachable: { step: z.string(), from: z.string().describe('The first step of the flow') },
  self_injection: { flow: z.string() },
  not_injectable: { flow: z.string() },
  injection_cycle: { cycle: z.array(z.string()).describe('The ring of flows, its first flow repeated at the end') },
  duplicate_detour: { signature: z.string(), same_as: z.string() },
  detour_not_returning: { step: z.string() },
  terminal_with_edges: { step: z.string() },
  unrecognized_keys: { keys: z.array(z.string()) },
  duplicate: { word: z.string() },
};

const member = (code: IssueCode) =>
  z
    .object({
      code: z.literal(code),
      path: z.array(z.union([z.string(), z.int()])).describe('Keys and indexes from the root of the document to the offending value; [] is the document itself'),
      message: z.string(),
      file: z.string().optional().describe('The file the problem is in'),
      line: z.int().min(1).optional().describe('The 1-based line of a JSON-lines document'),
      ...((DATA as Partial<Record<IssueCode, z.ZodRawShape>>)[code] ?? {}),
    })
    .describe(ISSUE_CODES[code]);

/** A ValidationIssue as JSON: a union keyed on `code` (docs/errors.md, Validation issues). */
export const ValidationIssueDoc = z.discriminatedUnion('code', ISSUE_CODE_LIST.map(member) as unknown as [ReturnType<typeof member>, ...ReturnType<typeof member>[]]);
