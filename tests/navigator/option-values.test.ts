import { describe, expect, it } from 'vitest';
import { optionTokens } from '../../src/navigator/retrieval/evidence/resolvers/option-values.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A table library reads files through registered readers: each reader module registers itself under a format name,
// a string only that module spells. The issue's words (table, read, header, rows, columns) fill the table module and
// the base reader; only the format name the snippet passes says which reader is at fault.
const reader = (name: string, cls: string, extra: string) =>
  `from tablelib.io.registry import register\nfrom tablelib.io.base import BaseReader\n\n\n@register("${name}")\nclass ${cls}(BaseReader):\n    """Reads one kind of text table."""\n\n    def split(self, line):\n${extra}\n`;
const REPO = {
  'setup.py': 'from setuptools import setup\n\nsetup(name="tablelib")\n',
  'tablelib/__init__.py': 'from tablelib.table import Table\n',
  'tablelib/table.py':
    'from tablelib.io.registry import reader_for\n\n\nclass Table:\n    """A table of rows and columns with a header row."""\n\n    def __init__(self, rows, header=None):\n        self.rows = rows\n        self.header = header\n\n    @classmethod\n    def read(cls, path, format=None, header_rows=None):\n        """Reads a table: the header rows, then the rows of columns."""\n        rows = reader_for(format)().read_rows(path)\n        return cls(rows[1:], header=rows[0])\n',
  'tablelib/io/__init__.py': '',
  'tablelib/io/registry.py': 'READERS = {}\n\n\ndef register(name):\n    def deco(cls):\n        READERS[name] = cls\n        return cls\n    return deco\n\n\ndef reader_for(name):\n    return READERS[name]\n',
  'tablelib/io/base.py':
    'class BaseReader:\n    """Reads a table\'s header rows and data rows; each row is split into columns."""\n\n    def read_rows(self, path):\n        """Reads the rows of the table, header rows first, and splits each row into columns."""\n        with open(path) as f:\n            return [self.split(line) for line in f]\n\n    def split(self, line):\n        return line.split()\n',
  'tablelib/io/csv_reader.py': reader('csv', 'CsvReader', '        return line.split(",")'),
  'tablelib/io/fixed.py': reader('fixed_width', 'FixedReader', '        return [line[i : i + 8] for i in range(0, len(line), 8)]'),
  'tablelib/io/grid.py': reader('ascii.grid', 'GridReader', '        return [c.strip() for c in line.strip("|").split("|")]'),
  ...filler('tablelib/util', 'py', 8, (i) => `def helper${i}(value):\n    """Formats a value for output ${i}."""\n    return str(value) + "${i}"\n`),
};

const ISSUE = `Reading a grid table keeps the border characters in the first and last column

\`\`\`python
from tablelib import Table
t = Table.read("data.txt", format="ascii.grid")
print(t.rows[0])
\`\`\`

The header rows are fine but every data row keeps the table's border in its first and last column: \`['|', 'a', 'b', '|']\`.
Expected the columns without the border: \`['a', 'b']\`.
`;

describe('option values of a Python snippet found where the library registers them (the option-values resolver)', () => {
  it('reads keyword values and configuration names, not data', () => {
    expect(optionTokens('t = Table.read("data file.txt", format="ascii.grid", sep=",")\nautodoc_typehints = "description"\nx = 3\n')).toEqual(['ascii.grid', 'description', 'autodoc_typehints']);
  });

  it('`format="ascii.grid"` finds the reader registered under that name', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, ISSUE);
    expect(JSON.stringify(outcome.artifacts)).toContain('option \\"ascii.grid\\"');
    // Without the rule the table module, richer in the report's words, comes first.
    expect(files[0]).toBe('tablelib/io/grid.py');
  });
});
