import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractFileRecord } from '../../src/repomap/file-record.js';
import { extractOutline } from '../../src/repomap/outline.js';
import { pythonOutline } from '../../src/repomap/python-outline.js';
import { SHOP } from './fixture.js';

// Each source is read both ways: the lexical outline must be the tree-sitter outline, field for field.
const SOURCES: Record<string, string> = {
  'decorators, comments between them, async': `import functools

# a comment before the decorators
@functools.cache
# between the decorators
@register("x", key=lambda v: v)
async def fetch(url,
                timeout=3) -> dict:
    # before the body
    """Fetch one URL."""
    return await get(url)
`,
  'classes, methods, trailing comments of blocks': `class A(Base):
    """The A."""

    x = 1

    def f(self):
        y = compute(1)
        # a trailing comment deeper than the method

    # a comment at the method level, before g
    def g(self): return self.f()
    # a comment after g, inside the class

# a module comment
def h():
    # first comment
    """doc"""
    return 1
`,
  'nested definitions in blocks, comments before a block\'s first statement': `def outer(a):
    if a:
        # about inner: before the if block's first statement
        def inner(b):
            return b.strip()
        return inner(a)
    for i in range(3):
        pass
    # about later: a sibling
    def later():
        return [x for x in items() if ok(x)]
    return later
`,
  'module-level assignments, annotations, docs from comments before': `x = 1  # trailing
# c2
# c3
y: int = 2
z: int
w = v = 3
a, b = 1, 2
counter += 1
f = lambda n: n + 1
TABLE = {
    'k': make('v'),
}
if __name__ == "__main__":
    main()
`,
  'calls: names, attributes, f-strings, decorators, keywords that are not calls': `def z():
    s = f"{foo(1)} {bar.baz(2)!r} {width:>{pad(3)}}"
    if (ok(s)) and not (bad(s)):
        print(*args(), **kwargs())
    obj.method(1).chain(2)
    return (yield thing())
`,
  'match statements: class patterns are not calls': `def m(v):
    match describe(v):
        case Point(x=0) if check(v):
            return 1
        case (str(), "==" | "!="):
            return 2
        case _:
            return 3
`,
  'one-line bodies, strings with escapes and continuations': `class E(Exception): pass
def one(): "doc"; return 1
def two(a, \\
        b):
    return '''it\\'s''' + "a \\" b"
message = ("first part "
           "second part")
`,
};

describe('pythonOutline', () => {
  for (const [title, source] of Object.entries(SOURCES)) {
    it(`reads what tree-sitter reads: ${title}`, async () => {
      const lexical = pythonOutline(source);
      expect(lexical).toBeDefined();
      expect(lexical).toEqual(await extractOutline('python', source));
    });
  }

  it('reads the fixture project\'s Python files as tree-sitter does', async () => {
    const text = readFileSync(path.join(SHOP, 'scripts/sales_report.py'), 'utf8');
    const lexical = pythonOutline(text);
    expect(lexical?.defs.length).toBeGreaterThan(0);
    expect(lexical).toEqual(await extractOutline('python', text));
  });

  it('is unsure of what it cannot read with certainty', () => {
    expect(pythonOutline('def f():\n    print "python 2"\n')).toBeUndefined();
    expect(pythonOutline('def f():\n\treturn 1\n')).toBeUndefined();
    expect(pythonOutline('def f():\n    return "open\n')).toBeUndefined();
    expect(pythonOutline('def f(:\n    return (1\n')).toBeUndefined();
    expect(pythonOutline('try:\n    pass\nexcept ValueError, e:\n    pass\n')).toBeUndefined();
    expect(pythonOutline('x = 0777\n')).toBeUndefined();
    expect(pythonOutline('class A:\n        def f(self): pass\n    def g(self): pass\n')).toBeUndefined();
  });

  it('leaves to tree-sitter, in the file record, what it is unsure of', async () => {
    const py2 = 'import os\n\ndef main():\n    print "hello", os.name\n\nmain()\n';
    const record = await extractFileRecord({ path: 'legacy.py', language: 'python', text: py2, unparsed: false });
    expect(record.outline).toEqual(await extractOutline('python', py2));
    const modern = SOURCES['module-level assignments, annotations, docs from comments before']!;
    const fast = await extractFileRecord({ path: 'm.py', language: 'python', text: modern, unparsed: false });
    expect(fast.outline).toEqual(pythonOutline(modern));
    expect(fast.lines).toBe(modern.split('\n').length - 1);
  });
});

describe('the warm-up texts', () => {
  it('are read whole where meant (every path of the reader taken) and declined where meant; outlines are the same before and after', async () => {
    const { WARM_UP_TEXTS } = await import('../../src/repomap/python-outline.js');
    // The first text and the CRLF one are Python the reader is sure of: read to the end, not declined half-way.
    expect(pythonOutline(WARM_UP_TEXTS[0]!)?.defs.map((d) => d.name)).toEqual(['X_MAX', 'Y', 'Z', 'Alpha', 'method', 'other', 'inner', 'top']);
    expect(pythonOutline(WARM_UP_TEXTS[1]!)?.defs.map((d) => d.name)).toEqual(['crlf']);
    expect(pythonOutline(WARM_UP_TEXTS[2]!)?.defs.map((d) => d.name)).toEqual(['VALUE']);
    // The texts it declines (tab indentation, Python 2, unbalanced brackets, an unterminated string).
    for (const t of WARM_UP_TEXTS.slice(3)) expect(pythonOutline(t)).toBeUndefined();
    // The reader's answer for a text does not depend on what it read before (the warm-up ran at the first call above).
    for (const [name, src] of Object.entries(SOURCES)) expect(JSON.stringify(pythonOutline(src)), name).toBe(JSON.stringify(pythonOutline(src)));
  });
});
