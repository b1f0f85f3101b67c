import type { CodeLanguage } from './languages.js';

// Definition and reference queries, written for this project. Each definition pattern captures the
// definition node as `@definition.<kind>` and its name as `@name`; references are `@reference`.

const TS_COMMON_DEFS = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (property_identifier) @name) @definition.method
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function
(expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)])) @definition.function
(expression_statement (assignment_expression left: (identifier) @name right: [(arrow_function) (function_expression)])) @definition.function
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable))
`;

const TS_ONLY_DEFS = `
(function_signature name: (identifier) @name) @definition.function
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (identifier) @name) @definition.module
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
`;

const JS_REFS = `
(call_expression function: (identifier) @reference)
(call_expression function: (member_expression property: (property_identifier) @reference))
(new_expression constructor: (identifier) @reference)
`;

// C and C++: a function's name sits at the bottom of its declarator chain (`char **f(void)`, `int &A::f()`), so the
// pattern captures the whole declarator and outline.ts reads the name out of it (the last segment of a qualified name,
// template arguments dropped). Prototypes are no definitions: a header's prototype is a reference to the definition in
// its source, which ties `foo.h` to `foo.c` in the reference graph (see REFERENCES).
const C_COMMON_DEFS = `
(function_definition declarator: (_) @name) @definition.function
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.struct
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(translation_unit (declaration declarator: (init_declarator declarator: (_) @name)) @definition.variable)
`;

const CPP_ONLY_DEFS = `
(class_specifier name: (_) @name body: (_)) @definition.class
(namespace_definition name: (_) @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type
(namespace_definition body: (declaration_list (declaration declarator: (init_declarator declarator: (_) @name)) @definition.variable))
`;

const C_COMMON_REFS = `
(preproc_include path: (string_literal) @include)
(preproc_include path: (system_lib_string) @include)
(call_expression function: (identifier) @reference)
(call_expression function: (field_expression field: (field_identifier) @reference))
(declaration declarator: (function_declarator declarator: (identifier) @reference))
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @reference)))
(type_identifier) @reference
`;

const CPP_ONLY_REFS = `
(call_expression function: (qualified_identifier name: (identifier) @reference))
(call_expression function: (template_function name: (identifier) @reference))
(call_expression function: (field_expression field: (template_method name: (field_identifier) @reference)))
(field_declaration declarator: (function_declarator declarator: (field_identifier) @reference))
`;

const DEFINITIONS: Record<CodeLanguage, string> = {
  typescript: TS_COMMON_DEFS + TS_ONLY_DEFS,
  tsx: TS_COMMON_DEFS + TS_ONLY_DEFS,
  javascript: TS_COMMON_DEFS,
  python: `
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
`,
  go: `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name)) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name)) @definition.constant)
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.variable)
`,
  rust: `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.struct
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(macro_definition name: (identifier) @name) @definition.macro
(impl_item type: (_) @name) @definition.impl
`,
  c: C_COMMON_DEFS,
  cpp: C_COMMON_DEFS + CPP_ONLY_DEFS,
  java: `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
`,
};

const REFERENCES: Record<CodeLanguage, string> = {
  typescript: JS_REFS + '(type_identifier) @reference\n',
  tsx: JS_REFS + '(type_identifier) @reference\n',
  javascript: JS_REFS,
  python: `
(call function: (identifier) @reference)
(call function: (attribute attribute: (identifier) @reference))
`,
  go: `
(call_expression function: (identifier) @reference)
(call_expression function: (selector_expression field: (field_identifier) @reference))
(type_identifier) @reference
`,
  rust: `
(call_expression function: (identifier) @reference)
(call_expression function: (field_expression field: (field_identifier) @reference))
(call_expression function: (scoped_identifier name: (identifier) @reference))
(macro_invocation macro: (identifier) @reference)
(type_identifier) @reference
`,
  c: C_COMMON_REFS,
  cpp: C_COMMON_REFS + CPP_ONLY_REFS,
  java: `
(method_invocation name: (identifier) @reference)
(object_creation_expression type: (type_identifier) @reference)
(type_identifier) @reference
`,
};

/** The definitions query of a language. */
export function definitionQuery(lang: CodeLanguage): string {
  return DEFINITIONS[lang];
}

/** The references query of a language. */
export function referenceQuery(lang: CodeLanguage): string {
  return REFERENCES[lang];
}

/** Bump when the queries or the outline format change: cached outlines carry it. */
export const OUTLINE_VERSION = 4;
