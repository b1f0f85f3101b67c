import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A bug report's own prose words (`reported`, `recently introduced`, `regression`) name no code (issue 40, switch
// `report-words`): a code base holds them in a few comments only, so they are rare and outweighed the words that name
// the code. Fails with NAVKERNEL_ABLATE=report-words (the changelog writer, whose comments tell of reported and
// recently introduced regressions, comes first).
const REPO = {
  'go.mod': 'module example.com/site\n\ngo 1.21\n',
  'content/cascade.go':
    'package content\n\n// Cascade copies front matter down to the pages below a section.\nfunc Cascade(section *Section, pages []*Page) {\n\tfor _, p := range pages {\n\t\tif p.Draft {\n\t\t\tcontinue\n\t\t}\n\t\tp.Params = section.Cascade\n\t}\n}\n',
  'content/page.go': 'package content\n\n// Page is one page of the site.\ntype Page struct {\n\tDraft  bool\n\tParams map[string]any\n}\n\n// Section holds pages.\ntype Section struct {\n\tCascade map[string]any\n}\n',
  'release/notes.go':
    'package release\n\n// Notes writes the release notes: each entry tells what was reported, which regression was\n// recently introduced and which one a release fixes. A regression reported twice is written once.\nfunc Notes(entries []string) string {\n\t// Entries reported after the release was tagged go to the next one; a recently introduced\n\t// regression is listed first, so a reader sees what was reported recently.\n\tout := ""\n\tfor _, e := range entries {\n\t\tout += e + "\\n"\n\t}\n\treturn out\n}\n',
  ...filler('render', 'go', 8, (i) => `package render\n\n// Part${i} renders a page of the site.\nfunc Part${i}(pages []string) int {\n\treturn len(pages) + ${i}\n}\n`),
};

describe('bug report prose words (the report-words rule)', () => {
  it('"reported", "recently introduced" and "regression" do not pull in the file whose comments say them', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'Cascade of draft pages panics\n\nA regression reported by users, recently introduced: cascading to a draft page panics.');
    expect(files[0]).toBe('content/cascade.go');
    expect(files).not.toContain('release/notes.go');
  });

  it('a report word written as code is still a word of the task', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'The `reported` list of Notes repeats entries\n\nWhat `Notes` writes for entries reported twice has them twice.');
    expect(files[0]).toBe('release/notes.go');
  });
});
