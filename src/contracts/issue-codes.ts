/**
 * The closed set of validation issue codes: every `ValidationIssue.code` any producer emits (flow loading and graph
 * checks, request and forensic checks, schema validation, the navigator capsule and registry, tool arguments).
 * Each has a sentence; docs/errors.md lists them (a test keeps the two in step).
 */
export const ISSUE_CODES = {
  // The file or folder itself
  not_found: 'The flow file or folder does not exist (or is a dangling symlink).',
  not_a_file: 'The path is not a regular file or folder (a socket, a device, …).',
  unreadable: 'The file exists but cannot be opened or read.',
  too_large: 'The file, line or value is larger than its size limit.',
  empty: 'The folder holds no flow files.',
  syntax: 'The text is not valid JSON or YAML.',
  invalid_json: 'A line of a JSON-lines file is not valid JSON.',
  // Schema checks (ajv keywords, in snake case where navkernel names them)
  required: 'A required field is missing.',
  unknown_property: 'A field the schema does not allow (a did-you-mean names the nearest allowed one).',
  enum: 'The value is not one of the allowed values.',
  const: 'The value is not the one value the schema allows.',
  type: 'The value has the wrong JSON type.',
  minimum: 'The number is below its minimum.',
  maximum: 'The number is above its maximum.',
  exclusiveMinimum: 'The number is not above its exclusive minimum.',
  exclusiveMaximum: 'The number is not below its exclusive maximum.',
  minLength: 'The string is shorter than allowed.',
  maxLength: 'The string is longer than allowed.',
  minItems: 'The array has fewer items than allowed.',
  maxItems: 'The array has more items than allowed.',
  pattern: 'The string does not match the required pattern.',
  format: 'The string is not in the required format (a date-time, a URI, …).',
  anyOf: 'The value matches none of the allowed shapes.',
  oneOf: 'The value matches none, or more than one, of the allowed shapes.',
  schema: 'The value breaks another rule of the schema (the message names it).',
  // Values the JSON checks refuse before the schema sees them
  ill_formed_unicode: 'A string or key holds a lone surrogate (not well-formed Unicode).',
  not_json: 'A value that is not plain JSON data (a function, a class instance, NaN, …).',
  // Flow graphs
  duplicate_flow: 'Two flow files define the same flow id.',
  duplicate_step: 'Two steps of a flow have the same id.',
  unknown_flow: 'A flow id that no loaded flow has.',
  unknown_step: 'A step id that the flow does not have.',
  no_terminal: 'The flow has no terminal step, so no run could end.',
  unreachable: 'A step no path from the first step reaches.',
  blank_status: 'An empty status name.',
  self_injection: 'A flow lists itself among the flows it may inject.',
  not_injectable: 'An injection names a flow the flow does not list in inject_flows.',
  injection_cycle: 'Flows inject one another in a cycle.',
  detour_target: 'A detour target gives both, or neither, of step and flow.',
  duplicate_detour: 'A step declares the same detour twice.',
  detour_not_returning: 'A detour goes to a step not marked returns: true, so it would not come back.',
  terminal_with_edges: 'A terminal step declares outgoing edges.',
  // Requests and forensics
  misspelt_field: 'A field the kernel does not read but whose name is close to one it does (it was not read).',
  contradiction: 'Two fields of the request contradict each other.',
  invalid_reports: 'Forensic report files that cannot be read or parsed.',
  repo_not_found: 'The repository path of a navigator state does not exist.',
  // Navigator
  invalid_capsule: 'A CNF capsule section is malformed.',
  duplicate: 'A registry word appears twice.',
  // zod issue codes, passed through from zod-checked documents (tool arguments, navigator and explorer documents)
  invalid_type: 'The value has the wrong type (zod).',
  invalid_value: 'The value is not one of the allowed values (zod).',
  invalid_format: 'The string is not in the required format (zod).',
  invalid_union: 'The value matches none of the allowed shapes (zod).',
  invalid_key: 'A record key is not valid (zod).',
  invalid_element: 'A map or set element is not valid (zod).',
  too_small: 'The value is smaller or shorter than allowed (zod).',
  too_big: 'The value is larger or longer than allowed (zod).',
  not_multiple_of: 'The number is not a multiple of the required step (zod).',
  unrecognized_keys: 'Fields the shape does not allow (zod).',
  custom: 'A check of its own failed (zod refinement; the message says which).',
} as const satisfies Record<string, string>;

/** One code of the closed set ISSUE_CODES: the `code` of a ValidationIssue. */
export type IssueCode = keyof typeof ISSUE_CODES;
/** Every issue code, in the order of ISSUE_CODES. */
export const ISSUE_CODE_LIST = Object.keys(ISSUE_CODES) as IssueCode[];

/** Whether a string is one of the issue codes. */
export function isIssueCode(code: unknown): code is IssueCode {
  return typeof code === 'string' && Object.hasOwn(ISSUE_CODES, code);
}

/** A code from outside navkernel (an ajv keyword, a zod issue code) as an issue code: itself if in the set, else `schema`. */
export function toIssueCode(code: string): IssueCode {
  return isIssueCode(code) ? code : 'schema';
}
