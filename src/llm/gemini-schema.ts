import type { JsonSchema } from './language-model.js';

/**
 * Converts the JSON Schema subset navkernel sends (object, array, string with enum, number, integer, boolean,
 * descriptions, bounds) into Gemini's OpenAPI-style `Schema` (upper-case types, counts as strings).
 * Properties keep their order through `propertyOrdering`, so the answer's fields come in the order asked.
 */
export function toGeminiSchema(schema: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let type = schema.type;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    if (nonNull.length !== type.length) out.nullable = true;
    type = nonNull[0];
  }
  if (typeof type === 'string') out.type = type.toUpperCase();
  else if (Array.isArray(schema.enum)) out.type = 'STRING';
  if (typeof schema.description === 'string') out.description = schema.description;
  if (Array.isArray(schema.enum)) out.enum = schema.enum.map(String);
  for (const k of ['minimum', 'maximum'] as const) if (typeof schema[k] === 'number') out[k] = schema[k];
  for (const k of ['minItems', 'maxItems', 'minLength', 'maxLength'] as const) if (typeof schema[k] === 'number') out[k] = String(schema[k]);
  if (schema.items && typeof schema.items === 'object') out.items = toGeminiSchema(schema.items as JsonSchema);
  if (schema.properties && typeof schema.properties === 'object') {
    const props = schema.properties as Record<string, JsonSchema>;
    out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, toGeminiSchema(v)]));
    out.propertyOrdering = Object.keys(props);
  }
  if (Array.isArray(schema.required)) out.required = schema.required;
  if (Array.isArray(schema.anyOf)) out.anyOf = (schema.anyOf as JsonSchema[]).map(toGeminiSchema);
  return out;
}
