import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { navigate } from '../../src/navigator/index.js';
import { readIssueTemplate, withoutIssueTemplate } from '../../src/navigator/retrieval/evidence/index.js';
import { scratch } from '../repomap/fixture.js';

const dirs = scratch();
afterAll(() => dirs.cleanup());

const TEMPLATE = [
  '---',
  'name: Bug report',
  "title: '<what happens>'",
  '---',
  '',
  '**Describe the bug**',
  'A clear and concise description of what the bug is.',
  '',
  '**To Reproduce**',
  'Steps to reproduce the behavior:',
  '',
  '**Expected behavior**',
  'A clear and concise description of what you expected to happen.',
  '',
  '<!-- Please fill in the versions below. -->',
  '**Environment info**',
  '- OS: [e.g. Unix/Linux/Mac/Win]',
  '- Python version: [e.g. 3.7.1]',
  '- Extensions: [e.g. app.plugins.zip]',
  '',
  '**Additional context**',
  'Add any other context about the problem here.',
].join('\n');

const ISSUE = [
  'Archive names with spaces are not quoted',
  '**Describe the bug**',
  'An archive whose name has spaces is written unquoted, so the shell splits it.',
  '<!-- Please fill in the versions below. -->',
  '**To Reproduce**',
  'Steps to reproduce the behavior:',
  '```',
  '$ pack "my archive"',
  '```',
  '**Expected behavior**',
  'The archive name is quoted.',
  '**Environment info**',
  '- OS: Linux',
  '- Python version: 3.8',
  '- Extensions: app.plugins.zip',
  '**Additional context**',
  'Add any other context about the problem here.',
].join('\n');

/** A repository where one module shares the template's words (environment, extensions, version, context, behaviour) and another the bug's. */
function repo(withTemplate: boolean): string {
  const root = dirs.tmp('nk-issue-template-');
  mkdirSync(path.join(root, 'app'), { recursive: true });
  writeFileSync(
    path.join(root, 'app/environment.py'),
    [
      'class Environment:',
      '    """The build environment: OS, Python version, extensions and additional context."""',
      '',
      '    def describe(self, behavior):',
      '        """Describe the expected behavior of the environment and its extensions."""',
      '        return {"os": self.os, "python_version": self.version, "extensions": self.extensions, "context": behavior}',
      '',
      '    def reproduce(self, steps):',
      '        """Steps to reproduce: the environment info, the version and the extensions."""',
      '        return [self.describe(s) for s in steps]',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(root, 'app/archive.py'),
    ['def archive_command(name):', '    """The shell command that packs an archive by its name."""', '    return "pack " + name', ''].join('\n'),
  );
  if (withTemplate) {
    mkdirSync(path.join(root, '.github/ISSUE_TEMPLATE'), { recursive: true });
    writeFileSync(path.join(root, '.github/ISSUE_TEMPLATE/bug_report.md'), TEMPLATE);
  }
  return root;
}

describe("the repository's issue template (evidence/issue-template)", () => {
  it("drops the template's headings and prompts, keeps the title, code and the values of its labels, and drops HTML comments", () => {
    const root = repo(true);
    const query = withoutIssueTemplate(ISSUE, readIssueTemplate(root));
    const lines = query.split('\n');
    expect(lines[0]).toBe('Archive names with spaces are not quoted');
    for (const gone of ['Describe the bug', 'Steps to reproduce', 'Expected behavior', 'Environment info', 'Additional context', 'Add any other context', '<!--', 'OS:', 'Python version']) {
      expect(query).not.toContain(gone);
    }
    for (const kept of ['An archive whose name has spaces is written unquoted', '$ pack "my archive"', 'The archive name is quoted.', 'Linux', 'app.plugins.zip']) expect(query).toContain(kept);
    // Without a template only the comments go.
    expect(withoutIssueTemplate(ISSUE, readIssueTemplate(repo(false)))).toBe(ISSUE.replace('<!-- Please fill in the versions below. -->', ''));
  });

  it('ranks by the bug, not by the words every issue from the template repeats', async () => {
    const pick = async (root: string) =>
      (await navigate({ task: ISSUE, repo_root: root, budget: { max_files: 1, max_lines: 40 } }, { cacheDir: false })).artifacts.context_load_receipt.files_loaded.map((f) => f.path);
    // The template's words pull towards the module that shares them when the repository has no template to recognise them by...
    expect(await pick(repo(false))).toEqual(['app/environment.py']);
    // ...and the bug's own words win once they are recognised as the template's.
    expect(await pick(repo(true))).toEqual(['app/archive.py']);
  });

  it('does not follow a template that is a symlink (the repository is untrusted)', () => {
    const root = repo(false);
    const outside = dirs.tmp('nk-issue-template-outside-');
    writeFileSync(path.join(outside, 'secret.md'), '**Archive names with spaces are not quoted**\nAn archive whose name has spaces is written unquoted, so the shell splits it.\n');
    mkdirSync(path.join(root, '.github'), { recursive: true });
    rmSync(path.join(root, '.github/ISSUE_TEMPLATE.md'), { force: true });
    // A symlink named like a template: lstat sees a link, not a file, so it is skipped.
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, '.github/ISSUE_TEMPLATE.md'));
    expect(readIssueTemplate(root).lines.size).toBe(0);
  });
});
