import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../../repomap/safe-path.js';

/**
 * An issue written from the repository's issue template repeats the template's headings and prompts
 * ("Describe the bug", "To Reproduce", "Environment info", "- OS:"). Those words are the same in every
 * issue and say nothing about where the bug is, yet they match code (`environment`, `extensions`,
 * `version`) and the template file itself. The query the navigator ranks with drops them: whole lines the
 * template holds, the label of a `label: value` line (the value stays: it may name an extension or a
 * module), and HTML comments (template instructions left in). The title, the first line, is never touched;
 * code fences are kept as they are.
 */

/** Where forges look for issue templates (GitHub, GitLab, Gitea), relative to the repository root. */
const TEMPLATE_PLACES = ['.github/ISSUE_TEMPLATE', '.github/ISSUE_TEMPLATE.md', '.github/issue_template.md', 'ISSUE_TEMPLATE.md', 'docs/ISSUE_TEMPLATE.md', '.gitlab/issue_templates', '.gitea/ISSUE_TEMPLATE', '.gitea/issue_template.md'];
const MAX_TEMPLATE_FILES = 20;
const MAX_TEMPLATE_BYTES = 64 * 1024;

function markupless(line: string): string {
  return line
    .toLowerCase()
    .replace(/\[(?:e\.g\.?|eg|ex|for example)[^\]]*\]/g, ' ')
    .replace(/\[[ x]?\]/g, ' ')
    .replace(/[#*_>`~|]+/g, ' ')
    .replace(/^\s*(?:[-+]|\d+[.)])\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A line reduced to its words: lower case, markdown markers, list marks, checkboxes and example placeholders gone. */
export function normaliseTemplateLine(line: string): string {
  return markupless(line).replace(/[\s:.]+$/, '');
}

/** The label of a `label: value` line (`- OS: [e.g. Linux]`, `- OS: Ubuntu 20.04` → `os`), or undefined. */
function labelOf(line: string): string | undefined {
  const m = /^([^:]{2,40}):(?:\s|$)/.exec(markupless(line) + ' ');
  return m && !/\/\//.test(m[1]!) ? m[1]!.trim() : undefined;
}

/** Lines and labels of the repository's issue templates (markdown templates and YAML issue forms). */
export interface IssueTemplate {
  lines: Set<string>;
  labels: Set<string>;
}

function templateFiles(root: string): string[] {
  const out: string[] = [];
  for (const place of TEMPLATE_PLACES) {
    const abs = path.join(root, place);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      continue;
    }
    // Symlinks are not followed: the repository is untrusted input.
    if (st.isFile()) out.push(abs);
    else if (st.isDirectory()) {
      for (const name of readdirSync(abs).sort()) {
        const f = path.join(abs, name);
        if (/\.(md|ya?ml)$/i.test(name) && lstatSync(f).isFile()) out.push(f);
      }
    }
  }
  return out.filter((f) => isInside(root, f)).slice(0, MAX_TEMPLATE_FILES);
}

/** Reads the templates under `root`; an empty template when there are none. */
export function readIssueTemplate(root: string): IssueTemplate {
  const lines = new Set<string>();
  const labels = new Set<string>();
  const add = (raw: string) => {
    const n = normaliseTemplateLine(raw);
    if (n.length >= 3) lines.add(n);
    const label = labelOf(raw);
    if (label) labels.add(label);
  };
  for (const file of templateFiles(root)) {
    let text: string;
    try {
      if (lstatSync(file).size > MAX_TEMPLATE_BYTES) continue;
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (/\.ya?ml$/i.test(file)) {
      // An issue form: its labels become the headings of the rendered issue; descriptions and placeholders are prompts.
      for (const m of text.matchAll(/^\s*-?\s*(?:label|description|placeholder|value|title):\s*[|>]?[-+]?\s*(.*)$/gm)) {
        const v = m[1]!.replace(/^["']|["']$/g, '').trim();
        if (v) v.split(/\\n|\n/).forEach(add);
      }
    } else {
      for (const l of text.replace(/^---\n[\s\S]*?\n---\n/, '').replace(/<!--[\s\S]*?-->/g, '\n').split('\n')) add(l);
    }
  }
  return { lines, labels };
}

/** The issue as the navigator ranks it: the template's prompts and headings and HTML comments removed. */
export function withoutIssueTemplate(task: string, template: IssueTemplate): string {
  const noComments = task.replace(/<!--[\s\S]*?-->/g, '');
  const lines = noComments.split('\n');
  if (lines.length < 2 || (!template.lines.size && !template.labels.size)) return noComments;
  const out: string[] = [lines[0]!];
  let fence = false;
  for (const line of lines.slice(1)) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence || /^\s*(```|~~~)/.test(line)) {
      out.push(line);
      continue;
    }
    const n = normaliseTemplateLine(line);
    if (n && template.lines.has(n)) continue;
    const label = labelOf(line);
    if (label && template.labels.has(label)) {
      out.push(line.slice(line.indexOf(':') + 1).trim());
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
