import type { FileExtrasSpec } from '../../repomap/file-record.js';
import type { FileLanguage } from '../../repomap/languages.js';
import { lexPieces } from './lex-text.js';

/**
 * The content fields of one file in the full-text index: its identifier terms and its comment/string terms,
 * each space-separated. Run beside the outline while the repository is indexed (in the worker threads).
 */
export function lexFields(relPath: string, language: FileLanguage, text: string): [string, string] {
  const lexed = lexPieces(language, relPath, text);
  return [lexed.idents.join(' '), lexed.words.join(' ')];
}

/** The index-run extras that compute `lexFields` (the module URL of this file, compiled or not). */
export const LEX_FIELDS_EXTRAS: FileExtrasSpec = {
  module: new URL(import.meta.url.endsWith('.ts') ? './lex-fields.ts' : './lex-fields.js', import.meta.url).href,
  export: 'lexFields',
};
