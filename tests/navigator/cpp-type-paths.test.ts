import { describe, expect, it } from 'vitest';
import { loadedFiles, writeRepo } from './fixture-repo.js';

// A YAML-like library: a node's members are defined out of their class in node.cpp (`void Node::remove(…) {`), and
// the emitter, the document store and the parser each define a `remove` of their own. The emitter's long `emit` speaks
// of nodes, keys and children the most. The issue names `Node::remove` in backticks: without the rule it is read as a
// literal (a string the code would spell) and `remove` alone is one of many, so the member is not shown. Fails with
// NAVKERNEL_ABLATE=cpp-type-paths (the switch is read at start).
function nodeCpp(): string {
  return [
    '#include "node.h"',
    '',
    'namespace yaml {',
    '',
    'Node::Node() : children_() {}',
    '',
    'void Node::push(const Node& child) {',
    '  children_.push_back(child);',
    '}',
    '',
    'bool Node::remove(const std::string& key) {',
    '  for (auto it = children_.begin(); it != children_.end(); ++it) {',
    '    if (it->key_ == key) { children_.erase(it); return true; }',
    '  }',
    '  return false;',
    '}',
    '',
    '}  // namespace yaml',
    '',
  ].join('\n');
}

function emitterCpp(): string {
  const body = Array.from({ length: 60 }, (_, i) => `  const Node& child_${i} = node.child(${i});  // the key of the child node`).join('\n');
  return ['#include "emitter.h"', '', 'namespace yaml {', '', 'void Emitter::emit(const Node& node) {', body, '}', '', 'bool Emitter::remove(const std::string& key) {', '  return pending_.erase(key) > 0;  // a pending key', '}', '', '}  // namespace yaml', ''].join('\n');
}

const store = (cls: string) => `#include "${cls.toLowerCase()}.h"\n\nnamespace yaml {\n\nbool ${cls}::remove(const std::string& key) {\n  return items_.erase(key) > 0;  // the key of a node\n}\n\n}  // namespace yaml\n`;

const REPO = {
  'CMakeLists.txt': 'project(yaml CXX)\nadd_library(yaml src/node.cpp src/emitter.cpp src/store.cpp src/parser.cpp)\n',
  'include/node.h': '#pragma once\n#include <string>\n#include <vector>\n\nnamespace yaml {\nclass Node {\n public:\n  Node();\n  void push(const Node& child);\n  bool remove(const std::string& key);\n  const Node& child(int i) const;\n  std::string key_;\n private:\n  std::vector<Node> children_;\n};\n}  // namespace yaml\n',
  'src/node.cpp': nodeCpp(),
  'src/emitter.cpp': emitterCpp(),
  'src/store.cpp': store('Store'),
  'src/parser.cpp': store('Parser'),
};
const TASK =
  'removing a key leaves its siblings behind\n\n`Node::remove` erases the first child whose key matches and returns, so a node with the same key twice keeps the second child node.';

describe('C++: a `Class::member` name credits that class\'s member (cpp-type-paths)', () => {
  it('shows `Node::remove` defined out of its class, not only the long emitter speaking of nodes and keys', async () => {
    const root = writeRepo(REPO, 'nk-cpp-paths-');
    const { files, outcome } = await loadedFiles(root, TASK, { max_lines: 40 });
    const receipt = outcome.artifacts.context_load_receipt;
    expect(files[0]).toBe('src/node.cpp');
    expect(receipt.definitions![0]!.symbol).toMatch(/remove$/);
    expect(JSON.stringify(receipt.definitions![0]!.evidence)).toContain('member Node::remove');
    const ranges = receipt.files_loaded.find((f) => f.path === 'src/node.cpp')!.ranges!;
    const line = nodeCpp().split('\n').findIndex((l) => l.includes('children_.erase(it)')) + 1;
    expect(ranges.some(([a, b]) => a <= line && line <= b)).toBe(true);
  });
});
