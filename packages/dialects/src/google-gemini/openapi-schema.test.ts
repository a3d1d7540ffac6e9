import { describe, expect, it } from 'vitest';
import { getDialect } from '../registry.ts';
import { isOpenApiSchema, openApiToJsonSchema } from './openapi-schema.ts';

const JSON_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name', examples: ['Paris'] },
    temp: { type: ['number', 'null'] },
    unit: { type: ['string', 'null'], enum: ['C', 'F', null] },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
    when: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'integer' }] },
  },
  required: ['city', 'temp'],
};

/** The same schema as Gemini callers write it in `responseSchema` / function `parameters`. */
const FORMS = [
  {
    client: '@google/genai (Type.OBJECT, upper case)',
    schema: {
      type: 'OBJECT',
      properties: {
        city: { type: 'STRING', description: 'City name', example: 'Paris' },
        temp: { type: 'NUMBER', nullable: true },
        unit: { type: 'STRING', nullable: true, enum: ['C', 'F'] },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: 1 },
        when: { anyOf: [{ type: 'STRING', format: 'date-time' }, { type: 'INTEGER' }] },
      },
      required: ['city', 'temp'],
      propertyOrdering: ['city', 'temp', 'unit', 'tags', 'when'],
    },
  },
  {
    client: 'the AI SDK (lower case, nullable)',
    schema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name', example: 'Paris' },
        temp: { type: 'number', nullable: true },
        unit: { type: 'string', nullable: true, enum: ['C', 'F'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        when: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'integer' }] },
      },
      required: ['city', 'temp'],
    },
  },
];

describe('Gemini OpenAPI-subset schemas become JSON Schema', () => {
  it.each(FORMS)('$client', ({ schema }) => {
    expect(isOpenApiSchema(schema)).toBe(true);
    expect(openApiToJsonSchema(schema)).toEqual(JSON_SCHEMA);
  });

  it('leaves JSON Schema alone, and a nullable schema without a type becomes anyOf with null', () => {
    expect(isOpenApiSchema(JSON_SCHEMA)).toBe(false);
    expect(openApiToJsonSchema({ nullable: true, description: 'x' })).toEqual({ anyOf: [{ description: 'x' }, { type: 'null' }] });
  });

  it.each(FORMS)('the request decoder translates $client in responseSchema and in function parameters', ({ schema }) => {
    const { request } = getDialect('google_gemini').decodeRequest(
      {
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        tools: [{ functionDeclarations: [{ name: 'f', parameters: schema }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: schema },
      },
      { model: 'g' },
    );
    expect(request.output).toMatchObject({ type: 'json', schema: JSON_SCHEMA });
    expect(request.tools?.[0]?.inputSchema).toEqual(JSON_SCHEMA);
  });
});
