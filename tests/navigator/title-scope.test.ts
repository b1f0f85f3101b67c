import { describe, expect, it } from 'vitest';
import { titleScopes } from '../../src/navigator/retrieval/evidence/resolvers/title-scope.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A Go command-line library: shell completion for each shell in its own file, the completion machinery they share, and
// a command type every file uses. "completion", "shell" and "flag" are everywhere; the title's scope says which shell.
const shellFile = (shell: string) =>
  `package clip\n\n// Gen${shell}Completion writes the ${shell} completion script of a command.\nfunc (c *Command) Gen${shell}Completion(w io.Writer) error {\n\t// The script completes flags, file names and the file extensions a flag accepts.\n\tscript := completionScript(c, "${shell.toLowerCase()}")\n\t_, err := io.WriteString(w, script)\n\treturn err\n}\n`;
const REPO = {
  'go.mod': 'module example.com/clip\n\ngo 1.21\n',
  'bash_completions.go': shellFile('Bash'),
  'zsh_completions.go': shellFile('Zsh'),
  'fish_completions.go': shellFile('Fish'),
  'powershell_completions.go': shellFile('PowerShell'),
  'completions.go':
    'package clip\n\n// completionScript builds the completion script of a shell (bash, zsh, fish, powershell): flags, file names, the file extensions of a flag marked as a filename, and an empty extension list for any file.\nfunc completionScript(c *Command, shell string) string {\n\t// A flag marked as a filename completes files; its extensions filter them.\n\treturn shell + c.Name\n}\n\n// MarkFlagFilename marks a flag as a filename with the file extensions it accepts.\nfunc (c *Command) MarkFlagFilename(name string, extensions ...string) error {\n\treturn nil\n}\n',
  'command.go': 'package clip\n\n// Command is a command with flags; its completion is generated for each shell: bash, zsh, fish, powershell.\ntype Command struct {\n\tName string\n}\n\n// Execute runs the command, completing flags and file names on request.\nfunc (c *Command) Execute() error {\n\treturn nil\n}\n',
  'flags.go': 'package clip\n\n// Flag is a flag of a command; a filename flag completes file names with the given extensions.\ntype Flag struct {\n\tName       string\n\tExtensions []string\n}\n',
  ...filler('internal/args', 'go', 8, (i) => `package args\n\n// Arg${i} is an argument of a command and its completion in bash, zsh, fish and powershell.\nfunc Arg${i}(flag string) string {\n\treturn flag\n}\n`),
};

describe("a commit-style title's scope (the title-scope resolver)", () => {
  it('reads the scope of a conventional title or a component prefix, never a commit type or a non-component word', () => {
    expect(titleScopes('fix(bash): unbound variable on an empty extension')).toEqual(['bash']);
    expect(titleScopes('feat(render, binding)!: stream data')).toEqual(['render', 'binding']);
    expect(titleScopes('reverseproxy: fix the reservoir sampling')).toEqual(['reverseproxy']);
    expect(titleScopes('fix: quote args in the fish completion')).toEqual([]);
    expect(titleScopes('fix(deps): bump the yaml module')).toEqual([]);
    expect(titleScopes('Question: how do I complete file names?')).toEqual([]);
    expect(titleScopes('Completion of an empty extension fails')).toEqual([]);
  });

  it('`fix(bash): …` finds the bash completion file among the shells that share every word', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'fix(bash): nounset unbound file filter variable on empty extension\n\nHappens at least if a flag is marked as filename, with "" given as extensions.');
    expect(files.slice(0, 3)).toContain('bash_completions.go');
  });
});
