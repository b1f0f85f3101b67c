// The weight of each kind of evidence, shared by the resolvers and the combiner.
/** Weights of each kind of evidence (a definition's score is the sum of what points at it). */
export const EVIDENCE_WEIGHTS = {
  /** The deepest in-repository frame; the k-th one up the stack gets frame / (1 + k). */
  frame: 3,
  /** A message whose words all occur, in order, in a string of the definition. */
  message: 2.5,
  /** A phrase the prose quotes (`"Please enter a valid path name"`), found like a message. */
  quoted: 2,
  /** A name imported from a module of the repository (or the module itself, `import a.b`). */
  import: 1.5,
  /** A dotted name resolved to a definition (`Class.method`, `module.function`). */
  dotted: 2,
  /** A Python method reached through a class the snippet constructs or subclasses (`s = Foo(); s.load()`), its own or its nearest base's. */
  receiver: 2,
  /** A name the issue calls, uses as an attribute, or writes in backticks; divided by the number of definitions of that name. */
  backtick: 1.2,
  call: 0.8,
  attr: 0.6,
  prose: 0.5,
  /** A backticked string the code spells exactly in a string literal (`unused-import`). */
  literal: 2,
  /** A macro the issue invokes (`select!`): the syntax says it is a macro, so only macro definitions of that name. */
  macro: 2,
  /** A C/C++ function registered under a name the issue writes (`{"gmatch", str_gmatch}`), or the `case` handling a registered option's character. */
  tableEntry: 2,
  /** A command-line flag the issue writes (`--word-regexp`), where the code spells it in a string (its definition or its message). */
  flag: 2,
  /** The same flag as an identifier (`word_regexp`, `wordRegexp`: a parser's field or option key). */
  flagName: 1,
  /** A link to a line of a file (`…/blob/<ref>/path#L60`): the definition holding that line. */
  link: 2,
  /** A file the issue names. */
  file: 1,
  /** A script the prose names by its file's stem (`the install script` → `scripts/install.sh`). */
  script: 1,
  /** A definition called by a strongly evidenced one (its callee), as a share of the caller's score. */
  callee: 0.25,
  /** A Python function one call away in another file (a callee or a caller of a best-evidenced function), as a share of that function's score times how well its body matches the words (python-call-hops.ts). */
  callHop: 0.5,
  /** A class's constructor (`__init__`, `__new__`, its own or its nearest base's) when the issue calls the class, as a share of the class's score. */
  constructor: 0.5,
  /** A member of an evidenced class named after an attribute the issue uses (`_eval_is_zero` for `.is_zero`), as a share of the class's score. */
  hook: 0.5,
  /** A subclass's method overriding an evidenced method, as a share of the method's score (divided by √ of the overrides). */
  override: 0.3,
  /** A method dispatched by an evidenced class's name (`_print_Subs`, `visit_Subs`), as a share of the class's score. */
  dispatch: 0.5,
} as const;
