import { describe, expect, it } from 'vitest';
import type { RankedFile } from '../../src/navigator/retrieval/ranking.js';
import { WHOLE_FILE_SLOTS, withWholeFileBest } from '../../src/navigator/retrieval/whole-file.js';
import { loadedFiles, writeRepo } from './fixture-repo.js';

// An HTTP client of a hundred files. The everyday words (request, body, retry, timeout, empty, lost) are each in
// far more than a tenth of the files, so the ranking's issue query leaves them out (ISSUE_DF_MAX); its one rare word
// ("zorblax") is in nine short handlers and in the send loop the fault is in. The loop uses every word of the issue,
// again and again, but it is long: on the rare word alone it ranks below the nine handlers. Plain search over whole
// files, every word weighted alike, finds it.
const COMMON = ['request', 'body', 'retry', 'timeout', 'empty', 'lost'];
const REPO: Record<string, string> = {
  'client/transport/replay.py':
    'def send_again(conn, req, n):\n' +
    '    # The request body is lost on a retry after a timeout: the body was read by the first try,\n' +
    '    # so a zorblax handler sees an empty body.\n' +
    '    # Rewind the request body before each retry, or the retry sends an empty body.\n' +
    '    body = req.body\n' +
    '    for retry in range(n):\n' +
    '        if body.lost():\n' +
    '            body = body.rewind()\n' +
    '        conn.send(req, body, timeout=req.timeout)\n' +
    '    return body\n',
};
for (let i = 0; i < 9; i++) REPO[`client/handlers/h${i}.py`] = `def handle_${i}(event):\n    """Zorblax handler ${i}: hands the event on."""\n    return event\n`;
for (let i = 0; i < 90; i++) REPO[`client/util/part_${i}.py`] = `def part_${i}(value):\n    # ${COMMON[i % 6]}, ${COMMON[(i + 1) % 6]} and ${COMMON[(i + 2) % 6]}\n    return value\n`;
const TASK = 'Request body is lost on retry\n\nThe body of a request is lost when the request is retried after a timeout: the zorblax handler then sees an empty body.';

const file = (path: string, cls: RankedFile['class'] = 'source'): RankedFile => ({ path, score: 1, text: 1, definition: 0, graph: 0, evidence: 0, class: cls, words: ['w'] });

describe('plain search over whole files fills the last places of a full pick (whole-file)', () => {
  it('a full pick keeps its first places and takes the best ranked sources plain search finds for the last ones', () => {
    const top = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((p) => file(p));
    const ranked = [...top, file('x'), file('y'), file('README.md', 'doc'), file('z')];
    const out = withWholeFileBest(top, ranked, ['README.md', 'b', 'x', 'unranked.py', 'z', 'y'], 8).map((f) => f.path);
    expect(WHOLE_FILE_SLOTS).toBe(2);
    // `b` is kept already; a doc and a file the ranking does not hold are passed over.
    expect(out).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'x', 'z']);
  });

  it('leaves a pick that stopped short (conclusive) or that plain search agrees with as it is', () => {
    const short = ['a', 'b', 'c'].map((p) => file(p));
    expect(withWholeFileBest(short, [...short, file('x')], ['x'], 8)).toBe(short);
    const full = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((p) => file(p));
    expect(withWholeFileBest(full, full, ['g', 'h'], 8).map((f) => f.path)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  });

  it('finds the send loop that uses every everyday word of the issue, below nine short files sharing its one rare word', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, TASK);
    expect(files.length).toBe(8);
    expect(files).toContain('client/transport/replay.py');
  });
});
