import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A Python documentation generator with an HTML theme: the stylesheet and the page template spell the sidebar's words
// (sidebar, width, collapse) far more often than the Python module that reads the option, yet the fix of a Python
// project goes in its Python files.
const REPO = {
  'setup.py': 'from setuptools import setup\n\nsetup(name="docgen")\n',
  'docgen/__init__.py': 'from docgen.builder import Builder\n',
  'docgen/builder.py':
    'from docgen.theme import sidebar_options\n\n\nclass Builder:\n    """Writes the pages of a project."""\n\n    def __init__(self, config):\n        self.config = config\n\n    def page_context(self):\n        return {"sidebar": sidebar_options(self.config)}\n',
  'docgen/theme.py':
    'def sidebar_options(config):\n    """The options of the page sidebar from the configuration."""\n    width = config.get("sidebar_width", 230)\n    return {"width": width, "collapse": False}\n',
  'docgen/static/basic.css':
    '/* sidebar */\ndiv.sidebar {\n    width: 230px;\n    float: left;\n}\n\ndiv.sidebar.collapse {\n    width: 0;\n}\n\n/* sidebar width when the sidebar does not collapse */\ndiv.sidebar-wide {\n    width: 330px;\n}\n',
  'docgen/templates/layout.html':
    '<div class="sidebar" style="width: {{ sidebar.width }}px">\n  {% if sidebar.collapse %}<button class="collapse">collapse the sidebar</button>{% endif %}\n  <!-- sidebar width from the theme options -->\n</div>\n',
  ...filler('docgen/util', 'py', 8, (i) => `def helper${i}(value):\n    """Formats a value for output ${i}."""\n    return str(value) + "${i}"\n`),
};

const ISSUE = `Sidebar width option is ignored, the sidebar does not collapse

Setting the sidebar width in the configuration has no effect:

\`\`\`python
html_theme_options = {"sidebarwidth": 300, "collapse": True}
\`\`\`

The sidebar stays 230px wide and never collapses, whatever width is given.
`;

describe('a Python repository gives its Python files first (the python-first rule)', () => {
  it('the stylesheet and the template that share the issue’s words come after the Python modules', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, ISSUE);
    const firstOther = files.findIndex((p) => !p.endsWith('.py'));
    expect(firstOther).toBeGreaterThan(0);
    expect(files.slice(firstOther).every((p) => !p.endsWith('.py'))).toBe(true);
    expect(files).toContain('docgen/theme.py');
  });

  it('a full pick gives the places of those files to the next Python sources (python-fill)', async () => {
    const root = writeRepo({
      ...REPO,
      'docgen/sidebar.py': 'def sidebarwidth(html_theme_options):\n    """The sidebarwidth of html_theme_options (230px by default)."""\n    return html_theme_options.get("sidebarwidth", 230)\n',
    });
    const { files } = await loadedFiles(root, ISSUE, { max_files: 3 });
    expect(files).toHaveLength(3);
    expect(files.every((p) => p.endsWith('.py'))).toBe(true);
  });

  it('a repository of another language keeps its order', async () => {
    const root = writeRepo({ ...Object.fromEntries(Object.entries(REPO).filter(([p]) => !p.startsWith('docgen/util'))), ...filler('web', 'ts', 12, (i) => `export function part${i}(value: string): string {\n  return value + '${i}';\n}\n`) });
    const { files } = await loadedFiles(root, ISSUE);
    // Most code files are TypeScript here: the stylesheet that ranks first stays first.
    expect(files[0]).toBe('docgen/static/basic.css');
  });
});
