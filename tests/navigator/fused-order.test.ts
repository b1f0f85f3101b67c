import { describe, expect, it } from 'vitest';
import type { RankedFile } from '../../src/navigator/retrieval/ranking.js';
import { FUSED_K, fusedPick } from '../../src/navigator/retrieval/fused-order.js';
import { loadedFiles, writeRepo } from './fixture-repo.js';

// A settings library of ninety files. The report is prose: no frame, message, path or qualified name, so nothing
// resolves and the ranking orders files by its chosen words. Its one rare word ("quoxel") names seven short profile
// modules; the merge function the fault is in uses every everyday word of the report (settings, environment, file,
// override, newer, stale), again and again, and names "quoxel" once in a long body: on the rare word it ranks below
// the seven profiles, so the ranking gives it a place after the fifth. Plain search over whole files ranks it first.
const COMMON = ['settings', 'environment', 'override', 'newer', 'stale', 'merge'];
const REPO: Record<string, string> = {
  'conf/layers/merge_sources.py':
    'def merge_sources(file_settings, env_settings, file_mtime, env_mtime):\n' +
    '    # Settings from the environment override settings from the file, even when the file is newer:\n' +
    '    # the environment settings are stale then, and a quoxel profile reads stale settings.\n' +
    '    merged = dict(file_settings)\n' +
    '    for key, value in env_settings.items():\n' +
    '        # an override from the environment wins only when it is newer than the settings file\n' +
    '        if env_mtime >= file_mtime:\n' +
    '            merged[key] = value\n' +
    '    # merge the stale environment settings last: the newer file settings stay\n' +
    '    return merged\n',
};
for (let i = 0; i < 7; i++) REPO[`conf/profiles/quoxel_${i}.py`] = `def quoxel_profile_${i}(name):\n    """Quoxel profile ${i}."""\n    return name\n`;
for (let i = 0; i < 80; i++) REPO[`conf/util/piece_${i}.py`] = `def piece_${i}(value):\n    # ${COMMON[i % 6]} and ${COMMON[(i + 1) % 6]} and ${COMMON[(i + 3) % 6]}\n    return value\n`;
const TASK =
  'Environment settings override a newer settings file\n\nWhen the settings file is newer than the environment, the environment settings still override it, so a quoxel profile reads stale settings after the merge.';

const file = (path: string, evidence = 0, cls: RankedFile['class'] = 'source'): RankedFile => ({ path, score: 1, text: 1, definition: 0, graph: 0, evidence, class: cls, words: ['w'] });
const names = (fs: RankedFile[] | undefined) => fs?.map((f) => f.path);

describe('plain search orders a pick that holds no evidence (fused-order)', () => {
  it('a file both lists rank well comes first; one plain search ranks first rises from below the fifth place', () => {
    const ranked = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'x', 'README.md'].map((p) => file(p, 0, p === 'README.md' ? 'doc' : 'source'));
    // Plain search: x best, then b; a doc and a file the ranking does not hold do not count as places.
    const out = names(fusedPick(ranked, ['README.md', 'unranked.py', 'x', 'b'], 8))!;
    expect(FUSED_K).toBe(10);
    // b: 1/11 + 1/11; a: 1/10; x: 1/19 + 1/10 — all above c (1/12).
    expect(out.slice(0, 4)).toEqual(['b', 'x', 'a', 'c']);
    expect(out).toHaveLength(8);
    expect(out).not.toContain('i');
  });

  it('leaves the order to the ranking when a picked file holds evidence, the ranking is short, or plain search found none of its sources', () => {
    const ranked = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'x'].map((p) => file(p));
    expect(fusedPick([...ranked.slice(0, 7), file('h', 0.4), file('x')], ['x'], 8)).toBeUndefined();
    expect(fusedPick(ranked.slice(0, 5), ['e'], 8)).toBeUndefined();
    expect(fusedPick(ranked, ['README.md', 'elsewhere.py'], 8)).toBeUndefined();
    // Evidence past the pick's places does not matter.
    expect(names(fusedPick([...ranked, file('y', 1)], ['x'], 8))).toContain('x');
  });

  it('gives the merge function that uses every everyday word of a prose report among the first five files', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, TASK);
    expect(files).toHaveLength(8);
    const at = files.indexOf('conf/layers/merge_sources.py');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(5);
  });
});
