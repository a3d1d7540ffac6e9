/**
 * The 5 x 5 handoff: a thread produced by each dialect (decoded from its wire stream:
 * reasoning with its provider state, a tool call, the tool result, a second turn, a new
 * user message) is continued with each dialect's `encodeRequest`. The body must be what
 * the target accepts by its documented rules (./handoff-rules.ts): its published request
 * schema, no orphaned tool results, valid and consistent tool-call ids, role alternation,
 * no foreign signatures; and the source's own state is sent back when the target is the
 * source itself.
 *
 * The `scripted` matrix generates every source turn with the wire encoders of
 * @parlance/testing (reasoning + signature + a tool call); the `recorded` matrix takes the
 * first turn from a real recording where one has reasoning and a tool call.
 */
import type { ModelRequest } from '@parlance/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDialect } from '../src/registry.ts';
import { DIALECT_IDS, type DialectId } from '../src/types.ts';
import { nativeReasoningReplay, opaqueTokens, reasoningTexts, ruleViolations, schemaErrors } from './handoff-rules.ts';
import { buildThread, modelFor, RECORDED_FIRST_TURN, type HandoffThread } from './handoff-thread.ts';

type Json = Record<string, any>;

function continueOn(target: DialectId, thread: HandoffThread): Json {
  const request: ModelRequest = {
    model: modelFor(target),
    system: 'You answer weather questions.',
    messages: thread.messages,
    tools: thread.tools,
    thinking: { effort: 'low' },
  };
  return getDialect(target).encodeRequest(request) as Json;
}

/** The text as it appears inside a JSON string (escapes included). */
const asJson = (text: string) => JSON.stringify(text).slice(1, -1);

function checkHandoff(thread: HandoffThread, target: DialectId): void {
  const body = continueOn(target, thread);
  const json = JSON.stringify(body);

  expect(schemaErrors(target, body), 'published request schema').toBe('');
  expect(ruleViolations(target, body), 'pairing, ids and alternation').toEqual([]);

  const tokens = opaqueTokens(thread.messages, thread.source);
  if (target === thread.source) {
    // Same dialect: every signature / encrypted content / thought signature / item id goes back.
    expect(tokens.filter((token) => !json.includes(asJson(token))), 'own provider state sent back').toEqual([]);
  } else {
    expect(tokens.filter((token) => json.includes(asJson(token))), 'foreign provider state in the body').toEqual([]);
    expect(nativeReasoningReplay(target, body), 'foreign reasoning replayed as native').toEqual([]);
    // Foreign reasoning is not lost: it travels as text (`<thinking>` or Ollama's `thinking`).
    for (const text of reasoningTexts(thread.messages)) expect(json).toContain(asJson(text));
  }
  // The continuation ends with the new user message, and the tool result reached the target.
  expect(json).toContain('And tomorrow?');
  expect(json).toMatch(/temperature[^,]*18/);
}

const pairs = DIALECT_IDS.flatMap((source) => DIALECT_IDS.map((target) => ({ source, target })));

describe('handoff 5 x 5 (scripted turns, decoded from generated wire streams)', () => {
  const threads = new Map<DialectId, HandoffThread>();
  beforeAll(async () => {
    for (const source of DIALECT_IDS) threads.set(source, await buildThread(source, { origin: 'scripted' }));
  });

  it.each(pairs)('$source -> $target', ({ source, target }) => {
    checkHandoff(threads.get(source)!, target);
  });
});

const recordedSources = DIALECT_IDS.filter((id) => RECORDED_FIRST_TURN[id] !== undefined);

describe('handoff from recorded turns (first turn from a real recording)', () => {
  const threads = new Map<DialectId, HandoffThread>();
  beforeAll(async () => {
    for (const source of recordedSources) threads.set(source, await buildThread(source, { origin: 'recorded' }));
  });

  it.each(recordedSources.flatMap((source) => DIALECT_IDS.map((target) => ({ source, target }))))(
    '$source (recorded) -> $target',
    ({ source, target }) => {
      checkHandoff(threads.get(source)!, target);
    },
  );
});

describe('handoff after two tool rounds (Gemini and Ollama ids repeat across turns)', () => {
  const threads = new Map<DialectId, HandoffThread>();
  beforeAll(async () => {
    for (const source of DIALECT_IDS) threads.set(source, await buildThread(source, { origin: 'scripted', rounds: 2 }));
  });

  it.each(pairs)('$source (2 rounds) -> $target', ({ source, target }) => {
    checkHandoff(threads.get(source)!, target);
  });
});
