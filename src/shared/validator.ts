/**
 * @module The JSON Schema validator (Ajv) with kb's settings, written once: request bodies and query strings
 * (server/app.ts), import lines (server/services/transfer/format.ts) and MCP tool arguments (mcp/server.ts) are all
 * checked by validators made here.
 */
import {Ajv} from 'ajv'

/**
 * A validator for JSON (`json`: no type coercion) or for query strings (`query`: text, so numbers and
 * booleans are coerced). Every error is reported, not just the first, so one answer lists every broken
 * field; defaults in the schemas are filled in; unknown fields are refused by the schemas
 * (`additionalProperties: false`), never silently removed; TypeBox's extra keywords are allowed.
 */
export function createValidator(input: 'json' | 'query'): Ajv {
  return new Ajv({allErrors: true, strict: false, useDefaults: true, removeAdditional: false, coerceTypes: input === 'query'})
}
