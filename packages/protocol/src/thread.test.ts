import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParlanceError } from './error.ts';
import type { Message, Part } from './message.ts';
import { parseThread, parseThreadLenient, serializeThread } from './thread.ts';
import { THREAD_VERSION, type Thread } from './thread-shape.ts';

// JSON values without -0 (JSON has no negative zero) and without undefined.
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const providerState = fc.option(fc.dictionary(fc.constantFrom('anthropic_messages', 'google_gemini', 'openai_responses'), json), {
  nil: undefined,
});

function withOptional<T extends object>(base: T, extra: Record<string, unknown>): T {
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
  return out as T;
}

const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ text: fc.string(), ps: providerState }).map(({ text, ps }) => withOptional<Part>({ type: 'text', text }, { providerState: ps })),
  fc
    .record({ text: fc.string(), signature: fc.option(fc.string(), { nil: undefined }), redacted: fc.option(fc.boolean(), { nil: undefined }), ps: providerState })
    .map(({ text, signature, redacted, ps }) => withOptional<Part>({ type: 'reasoning', text }, { signature, redacted, providerState: ps })),
  fc.record({ id: fc.string(), name: fc.string(), input: json, ps: providerState }).map(({ id, name, input, ps }) =>
    withOptional<Part>({ type: 'tool-call', id, name, input }, { providerState: ps }),
  ),
  fc
    .record({ toolCallId: fc.string(), name: fc.string(), output: json, isError: fc.option(fc.boolean(), { nil: undefined }) })
    .map(({ toolCallId, name, output, isError }) => withOptional<Part>({ type: 'tool-result', toolCallId, name, output }, { isError })),
  fc
    .record({ mediaType: fc.constantFrom('image/png', 'application/pdf'), data: fc.base64String(), filename: fc.option(fc.string(), { nil: undefined }) })
    .map(({ mediaType, data, filename }) => withOptional<Part>({ type: 'file', mediaType, data }, { filename })),
  fc.record({ mediaType: fc.constant('image/jpeg'), url: fc.webUrl() }).map(({ mediaType, url }) => ({ type: 'file', mediaType, url }) as Part),
  fc.record({ url: fc.webUrl(), title: fc.option(fc.string(), { nil: undefined }) }).map(({ url, title }) => withOptional<Part>({ type: 'source', url }, { title })),
  fc.record({ text: fc.string(), ps: providerState }).map(({ text, ps }) => withOptional<Part>({ type: 'compaction', text }, { providerState: ps })),
);

const message: fc.Arbitrary<Message> = fc
  .record({
    id: fc.string({ minLength: 1 }),
    role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
    parts: fc.array(part, { maxLength: 5 }),
    createdAt: fc.option(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), { nil: undefined }),
    metadata: fc.option(fc.dictionary(fc.string(), json), { nil: undefined }),
    provenance: fc.option(fc.record({ provider: fc.string(), model: fc.string(), dialect: fc.string() }), { nil: undefined }),
  })
  .map(({ id, role, parts, ...rest }) => withOptional<Message>({ id, role, parts }, rest));

const thread: fc.Arbitrary<Thread> = fc
  .record({ id: fc.string(), messages: fc.array(message, { maxLength: 8 }), metadata: fc.option(fc.dictionary(fc.string(), json), { nil: undefined }) })
  .map(({ id, messages, metadata }) => withOptional<Thread>({ version: THREAD_VERSION, id, messages }, { metadata }));

describe('thread codec', () => {
  it('round trips any valid thread unchanged, providerState included', () => {
    fc.assert(
      fc.property(thread, (t) => {
        expect(parseThread(serializeThread(t))).toEqual(t);
      }),
      { numRuns: 300 },
    );
  });

  it('turns random corruptions of valid JSON into a ParlanceError with a path, never an uncaught exception', () => {
    const mutation = fc.oneof(
      fc.constant('delete'),
      fc.constant('null'),
      fc.constant('number'),
      fc.constant('array'),
      fc.constant('string'),
    );
    fc.assert(
      fc.property(thread, fc.nat(), mutation, (t, seed, how) => {
        // Walk to a random node of the JSON tree and break it.
        const root = JSON.parse(serializeThread(t)) as Record<string, unknown>;
        const nodes: [Record<string, unknown> | unknown[], string | number][] = [];
        const visit = (node: unknown) => {
          if (Array.isArray(node)) {
            node.forEach((v, i) => {
              nodes.push([node, i]);
              visit(v);
            });
          } else if (node && typeof node === 'object') {
            for (const [k, v] of Object.entries(node)) {
              nodes.push([node as Record<string, unknown>, k]);
              visit(v);
            }
          }
        };
        visit(root);
        const [parent, key] = nodes[seed % nodes.length]!;
        const target = parent as Record<string | number, unknown>;
        if (how === 'delete') delete target[key];
        else target[key] = how === 'null' ? null : how === 'number' ? 42 : how === 'array' ? [] : 'x';
        try {
          parseThread(JSON.stringify(root));
        } catch (error) {
          expect(ParlanceError.isInstance(error)).toBe(true);
          const e = error as ParlanceError;
          expect(e.code).toBe('invalid_request');
          expect(Array.isArray(e.path)).toBe(true);
          expect(e.message).toContain('Invalid thread at');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('names the path of an invalid message', () => {
    const bad = { version: 1, id: 't', messages: [{ id: 'a', role: 'user', parts: [] }, { id: 'b', role: 'user', parts: [{ type: 'text', text: 5 }] }] };
    expect(() => parseThread(bad)).toThrowError(/messages\.1\.parts\.0/);
    try {
      parseThread(bad);
    } catch (error) {
      expect((error as ParlanceError).path).toEqual(['messages', 1, 'parts', 0, 'text']);
    }
  });

  it('rejects text that is not JSON, and threads from a newer version, with typed errors', () => {
    expect(() => parseThread('{"version":1,')).toThrowError(/not JSON/);
    expect(() => parseThread({ version: 99, id: 't', messages: [] })).toThrowError(/newer/);
  });

  it('refuses a version that is negative, fractional or not a number, naming `version`', () => {
    for (const version of [-1, 0.5, '1', null]) {
      expect(() => parseThread({ version, id: 't', messages: [] })).toThrowError(expect.objectContaining({ code: 'invalid_request', path: ['version'] }));
    }
  });

  it('migrates a version 0 thread (content instead of parts)', () => {
    const old = { id: 't', messages: [{ id: 'a', role: 'user', content: 'hello' }, { id: 'b', role: 'assistant', content: [{ type: 'text', text: 'hi' }] }] };
    expect(parseThread(JSON.stringify(old))).toEqual({
      version: THREAD_VERSION,
      id: 't',
      messages: [
        { id: 'a', role: 'user', parts: [{ type: 'text', text: 'hello' }] },
        { id: 'b', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] },
      ],
    });
  });

  it('quarantines a corrupt message instead of failing the thread when asked to', () => {
    const { thread: t, quarantined } = parseThreadLenient({
      version: 1,
      id: 't',
      messages: [{ id: 'a', role: 'user', parts: [] }, { id: 'b', role: 'robot', parts: [] }, { id: 'c', role: 'user', parts: [] }],
    });
    expect(t.messages.map((m) => m.id)).toEqual(['a', 'c']);
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]).toMatchObject({ index: 1, path: ['messages', 1, 'role'], raw: { id: 'b', role: 'robot', parts: [] } });
  });
});
