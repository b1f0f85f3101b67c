import type { BuiltinSignature } from '../contracts/report-formats.js';

/**
 * The failure signatures real tools' output shows, read from a failing test or a diagnostic's code. (The
 * kernel's matcher table holds the same shapes as text patterns, for runners that send raw output instead.)
 */

/** Diagnostic codes (tsc, mypy, pyright) that name a signature. */
const CODE_SIGNATURES: Readonly<Record<string, BuiltinSignature>> = {
  TS2307: 'missing_import', // Cannot find module 'x' or its corresponding type declarations.
  TS2305: 'missing_import', // Module 'x' has no exported member 'y'.
  'import-not-found': 'missing_import', // mypy
  'import-untyped': 'missing_import',
  import: 'missing_import',
  reportMissingImports: 'missing_import', // pyright
  reportMissingModuleSource: 'missing_import',
  TS2322: 'type_mismatch', // Type 'x' is not assignable to type 'y'.
  TS2345: 'type_mismatch', // Argument of type 'x' is not assignable to parameter of type 'y'.
  'arg-type': 'type_mismatch', // mypy
  assignment: 'type_mismatch',
  'return-value': 'type_mismatch',
  reportArgumentType: 'type_mismatch', // pyright
  reportAssignmentType: 'type_mismatch',
  reportReturnType: 'type_mismatch',
};

/** The signature a diagnostic code shows, if any. */
export function signatureOfCode(code: string | undefined): BuiltinSignature | undefined {
  return code !== undefined && Object.hasOwn(CODE_SIGNATURES, code) ? CODE_SIGNATURES[code] : undefined;
}

const IMPORT_ERROR = /\b(?:ModuleNotFoundError|ImportError)\b|\bcannot find package\s+"[^"]+"|\bCannot find module\s+['"]/;
const FIXTURE_ERROR = /\bfailed on setup with\b|\berror at setup of\b|\bfixture\s+'[^']+'\s+not found|\bFixtureLookupError\b|\bbefore (?:all|each)\b.*hook|\b(?:setUpClass|setUp|beforeAll|beforeEach)\b/i;

/** The signature a failing test shows: an import error, or an error in a fixture or setup. */
export function signatureOfTest(f: { kind: 'failure' | 'error'; type?: string | undefined; message?: string | undefined; detail?: string | undefined }): BuiltinSignature | undefined {
  const text = `${f.type ?? ''}\n${f.message ?? ''}\n${f.detail ?? ''}`;
  if (IMPORT_ERROR.test(text)) return 'missing_import';
  if (f.kind === 'error' && FIXTURE_ERROR.test(text)) return 'test_fixture_error';
  if (/fixture/i.test(f.type ?? '')) return 'test_fixture_error';
  return undefined;
}
