// An outline must not keep its file's text alive: names cut from the text (by the Python reader or tree-sitter) are
// views of the whole text in V8 when 13 characters or longer, so an index held in memory would hold every parsed
// file's text. The record's names are copied out; the text is collected once dropped while the record is kept.
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { extractFileRecord, type FileRecord } from '../../src/repomap/file-record.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const used = () => {
  gc();
  gc();
  return v8.getHeapStatistics().used_heap_size;
};

/** A file of long definition and reference names, padded with comment lines to `mb` megabytes. */
function bigText(language: 'python' | 'typescript', mb: number): string {
  const pad = `${language === 'python' ? '#' : '//'} ${'padding words of a long comment '.repeat(120)}`;
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 2 ** 20; i++) {
    const block =
      language === 'python'
        ? [`def accumulate_the_final_message_${i}(event_stream_argument):`, `    return merge_streaming_events_into_message_${i}(event_stream_argument)`, pad]
        : [`export function accumulateTheFinalMessage${i}(eventStreamArgument: number): number {`, `  return mergeStreamingEventsIntoMessage${i}(eventStreamArgument);`, '}', pad];
    for (const l of block) {
      lines.push(l);
      size += l.length + 1;
    }
  }
  return lines.join('\n');
}

describe('an outline holds its names, not its text', () => {
  for (const language of ['python', 'typescript'] as const) {
    it(`lets ${language} files' texts go once their records are all that is kept`, async () => {
      const path = `big.${language === 'python' ? 'py' : 'ts'}`;
      // The parser's first use (tree-sitter, its grammar, the query) is left out of the measure.
      await extractFileRecord({ path, language, text: bigText(language, 0.01), unparsed: false });
      const before = used();
      const records: FileRecord[] = [];
      let length = 0;
      for (let k = 0; k < 4; k++) {
        const text = bigText(language, 6);
        length = text.length;
        records.push(await extractFileRecord({ path, language, text, unparsed: false }));
      }
      for (const record of records) {
        expect(record.outline.defs.length).toBeGreaterThan(100);
        expect(record.outline.defs[0]!.name).toMatch(/^accumulate_?the_?final_?message_?0$/i);
        expect(record.outline.refs.some(([name]) => /^merge_?streaming_?events_?into_?message_?0$/i.test(name))).toBe(true);
      }
      // Four texts of 6 MB were parsed; the records' names are a small fraction of one. (V8's optimised code may
      // keep the last text the parser read as a constant: one text at most is allowed for.)
      const grown = used() - before;
      expect(grown).toBeLessThan(2 * length);
    });
  }
});
