import { describe, expect, it } from 'vitest';
import { receiverUses } from '../../src/navigator/retrieval/evidence/resolvers/python-receivers.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A serialisation library: the public `Schema` adds nothing to loading, it inherits `load` from `BaseSchema` in another
// module. The issue's snippet subclasses `Schema` and calls `load` on an instance; the words of the report (load, many,
// input, items, errors) fill the loader helpers and the schema module far more than the base class's short method.
const REPO = {
  'setup.py': 'from setuptools import setup\n\nsetup(name="schemalib")\n',
  'schemalib/__init__.py': 'from schemalib.schema import Schema\nfrom schemalib import fields\n\n__all__ = ["Schema", "fields"]\n',
  'schemalib/base.py':
    'class BaseSchema:\n    """Shared behaviour of schemas."""\n\n    def load(self, data, many=None):\n        if many:\n            return [self._one(d) for d in data]\n        return self._one(data)\n\n    def _one(self, data):\n        return dict(data)\n',
  'schemalib/schema.py':
    'from schemalib.base import BaseSchema\n\n\nclass SchemaOptions:\n    """Options of a schema: many, unknown, ordered; load and dump many items by default when many is set."""\n\n    def __init__(self, meta):\n        self.many = getattr(meta, "many", False)\n        self.unknown = getattr(meta, "unknown", "raise")\n\n\nclass Schema(BaseSchema):\n    """A schema loads input data and validates it; with many=True the input is a list of items."""\n\n    OPTIONS_CLASS = SchemaOptions\n\n    def validate(self, data, many=None):\n        """Validates input: many items when many is true; returns the errors of the input."""\n        return {}\n',
  'schemalib/loader.py':
    'from schemalib.errors import ValidationError\n\n\ndef load_many(items, load_one):\n    """Loads many input items; a TypeError of one item becomes a ValidationError of the input."""\n    out = []\n    for item in items:\n        try:\n            out.append(load_one(item))\n        except TypeError as e:\n            raise ValidationError(str(e)) from e\n    return out\n\n\ndef load_input(data, many):\n    """Loads the input: many items or one, raising ValidationError on an invalid input type."""\n    return load_many(data, dict) if many else dict(data)\n',
  'schemalib/errors.py': 'class ValidationError(Exception):\n    """Raised when the input is invalid: the errors by field, for one item or many items."""\n\n    def __init__(self, message, field_name="_schema"):\n        super().__init__(message)\n        self.field_name = field_name\n',
  'schemalib/fields.py': 'class Field:\n    def deserialize(self, value):\n        return value\n\n\nclass Str(Field):\n    def deserialize(self, value):\n        return str(value)\n',
  ...filler('schemalib/ext', 'py', 8, (i) => `def helper${i}(value):\n    """Formats a value for output ${i}."""\n    return str(value) + "${i}"\n`),
};

const ISSUE = `load() with many=True and a non-list input raises TypeError instead of a ValidationError

When an API client sends a single item where a list of items is expected, loading many items crashes with a TypeError
instead of giving a validation error for the input:

\`\`\`python
from schemalib import Schema, fields

class ItemSchema(Schema):
    name = fields.Str()

ItemSchema().load(42, many=True)
\`\`\`

\`\`\`
TypeError: 'int' object is not iterable
\`\`\`

Expected: a ValidationError for the input, as when many is false.
`;

describe('Python methods reached through a snippet’s classes (the python-receivers resolver)', () => {
  it('reads bound instances, the snippet’s own subclasses and chained calls', () => {
    const u = receiverUses('from lib import Schema, fields\nclass Mine(Schema):\n    pass\nclass Plain:\n    pass\ns = Mine()\ns.load(1)\nc = lib.Color.parse("x")\nc.downgrade(2)\nfields.DateTime().deserialize("x")\np = Plain()\np.run()\n');
    expect(u.subclasses.get('Mine')).toEqual(['Schema']);
    expect(u.subclasses.get('Plain')).toEqual([]);
    expect(u.bound.get('c')).toBe('Color');
    expect(u.uses).toEqual(expect.arrayContaining([{ cls: 'Mine', member: 'load' }, { cls: 'Color', member: 'downgrade' }, { cls: 'DateTime', member: 'deserialize' }]));
  });

  it('a subclass of the public class calling an inherited method finds the base that defines it', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, ISSUE);
    // The base class's method is the best-evidenced definition, and its file comes before the loader helpers that
    // share the report's words (without the rule, base.py ranks below loader.py).
    const first = /"definitions":\[\{"path":"([^"]+)","symbol":"([^"]+)"/.exec(JSON.stringify(outcome.artifacts));
    expect(first?.slice(1)).toEqual(['schemalib/base.py', 'BaseSchema.load']);
    expect(JSON.stringify(outcome.artifacts)).toContain('ItemSchema.load (a subclass of Schema)');
    expect(files.indexOf('schemalib/base.py')).toBeGreaterThanOrEqual(0);
    expect(files.indexOf('schemalib/base.py')).toBeLessThan(files.indexOf('schemalib/loader.py'));
  });
});
