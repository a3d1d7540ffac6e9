/** Small JSON helpers the encoders and decoders share. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields that are set: a copy without the `undefined` ones (JSON leaves them out anyway). */
export function definedFields(fields: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * Tool arguments as a JSON object, for wire formats that carry them as objects
 * (Gemini's protobuf Struct, Ollama's `arguments`): an object as is, a JSON string
 * parsed, nothing as `{}`, anything else wrapped as `{ input }`.
 */
export function toArgumentsObject(input: unknown): JsonObject {
  if (isObject(input)) return input;
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      if (isObject(parsed)) return parsed;
    } catch {
      // not JSON: wrapped below
    }
  }
  return input === undefined || input === null || input === '' ? {} : { input };
}
