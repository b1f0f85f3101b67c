import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A Go web framework's renderers: every type in package render has a `Render` method, declared at the top level of its
// file beside its type (`func (r Data) Render(w http.ResponseWriter) error`). The reader renderer and the context speak
// of data and content length the most; the issue names the method of one type.
const renderer = (type: string, body: string) =>
  `package render\n\nimport "net/http"\n\n// ${type} renders a response.\ntype ${type} struct {\n\tContentType string\n\tData        []byte\n}\n\n// Render writes the response.\nfunc (r ${type}) Render(w http.ResponseWriter) error {\n${body}\n}\n\n// WriteContentType writes the content type.\nfunc (r ${type}) WriteContentType(w http.ResponseWriter) {\n\tw.Header().Set("Content-Type", r.ContentType)\n}\n`;
const REPO = {
  'go.mod': 'module example.com/relay\n\ngo 1.21\n',
  'render/data.go': renderer('Data', '\tr.WriteContentType(w)\n\t_, err := w.Write(r.Data)\n\treturn err'),
  'render/json.go': renderer('JSON', '\tr.WriteContentType(w)\n\t_, err := w.Write(r.Data)\n\treturn err'),
  'render/text.go': renderer('Text', '\tr.WriteContentType(w)\n\t_, err := w.Write(r.Data)\n\treturn err'),
  'render/xml.go': renderer('XML', '\tr.WriteContentType(w)\n\t_, err := w.Write(r.Data)\n\treturn err'),
  'render/reader.go': renderer(
    'Reader',
    '\t// The reader\'s data has a known content length: write the content length header before the data.\n\tcontentLength := len(r.Data)\n\tw.Header().Set("Content-Length", strconv.Itoa(contentLength))\n\tr.WriteContentType(w)\n\t_, err := w.Write(r.Data)\n\treturn err',
  ),
  'context.go':
    'package relay\n\nimport "example.com/relay/render"\n\n// Data writes data with a content type; the content length of the data follows from the renderer.\nfunc (c *Context) Data(code int, contentType string, data []byte) {\n\tc.Render(code, render.Data{ContentType: contentType, Data: data})\n}\n\n// DataFromReader writes the data of a reader with its content length.\nfunc (c *Context) DataFromReader(code int, contentLength int64, contentType string) {\n\tc.Render(code, render.Reader{ContentType: contentType})\n}\n\n// Render writes the data of a renderer.\nfunc (c *Context) Render(code int, r render.Render) {\n\tc.Status(code)\n}\n',
  'response_writer.go': 'package relay\n\n// Written data and its content length are counted by the response writer.\ntype responseWriter struct {\n\tsize int\n}\n\n// Write writes data and counts the content length.\nfunc (w *responseWriter) Write(data []byte) (int, error) {\n\tw.size += len(data)\n\treturn len(data), nil\n}\n',
  ...filler('binding', 'go', 8, (i) => `package binding\n\n// Part${i} binds request data.\nfunc Part${i}(data []byte) int {\n\treturn len(data) + ${i}\n}\n`),
};

describe('Go methods named by their receiver type (the go-receivers resolver)', () => {
  it('`Data.Render` in an issue finds the Render declared on Data, not the other renderers or the context', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, 'fix(render): write content length in Data.Render\n\nData.Render writes the data without a content length header, so clients cannot tell the length of the data.');
    expect(files[0]).toBe('render/data.go');
    const reasons = JSON.stringify(outcome.artifacts);
    expect(reasons).toContain('method Data.Render');
  });

  it('a package-qualified `render.Data.Render` and a pointer receiver are read the same way', async () => {
    const root = writeRepo({ ...REPO, 'render/data.go': (REPO['render/data.go'] as string).replace(/func \(r Data\)/g, 'func (r *Data)') });
    const { files } = await loadedFiles(root, 'render.Data.Render drops the content length\n\nThe content length of the data is missing.');
    expect(files[0]).toBe('render/data.go');
  });
});
