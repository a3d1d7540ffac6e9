import { describe, expect, expectTypeOf, it } from 'vitest';
import { MODERATION_CATEGORIES, type ModerationCategory, moderate, openaiModerationModel, resolveModerationModel } from '../../src/index.ts';
import { sendJson, serverPerTest } from '../providers/server.ts';
import { expectValid, OPENAI_SCHEMA } from './media-wire.ts';

const serve = serverPerTest();

function rawResult(flag: ModerationCategory[], score: Partial<Record<string, number>> = {}, legacy = false) {
  const categories: Record<string, boolean | null> = {};
  const scores: Record<string, number> = {};
  const applied: Record<string, string[]> = {};
  for (const c of MODERATION_CATEGORIES) {
    categories[c] = flag.includes(c);
    scores[c] = score[c] ?? 0.001;
    applied[c] = ['text'];
  }
  if (legacy) {
    categories.illicit = null;
    categories['illicit/violent'] = null;
    delete scores.illicit;
    delete scores['illicit/violent'];
  }
  return { flagged: flag.length > 0, categories, category_scores: scores, ...(legacy ? {} : { category_applied_input_types: applied }) };
}

describe('OpenAI moderation', () => {
  it('one result per string, typed categories and scores', async () => {
    const server = await serve((req, res) => {
      expectValid(OPENAI_SCHEMA, 'CreateModerationRequest', req.body);
      sendJson(res, 200, { id: 'modr-1', model: 'omni-moderation-2024-09-26', results: [rawResult([]), rawResult(['violence'], { violence: 0.93 })] });
    });
    const model = resolveModerationModel('openai:omni-moderation-latest', { baseURL: server.url, apiKey: 'sk' });
    const response = await moderate(model, { input: ['hello', 'I will hurt them'] });
    expect(server.requests[0]!.url).toBe('/moderations');
    expect(server.requests[0]!.body).toEqual({ model: 'omni-moderation-latest', input: ['hello', 'I will hurt them'] });
    expect(response.flagged).toBe(true);
    expect(response.id).toBe('modr-1');
    expect(response.results[0]!.flagged).toBe(false);
    expect(response.results[1]!.categories.violence).toBe(true);
    expect(response.results[1]!.categories.hate).toBe(false);
    expect(response.results[1]!.scores.violence).toBe(0.93);
    expect(response.results[1]!.appliedInputTypes?.violence).toEqual(['text']);
    expect(Object.keys(response.results[1]!.scores).sort()).toEqual([...MODERATION_CATEGORIES].sort());
    expect(response.usage).toEqual({ cost: 0 });
    expectTypeOf(response.results[0]!.scores).toEqualTypeOf<Record<ModerationCategory, number>>();
  });

  it('text with images goes as the multi-modal array; legacy nulls read as not flagged', async () => {
    const server = await serve((req, res) => {
      expectValid(OPENAI_SCHEMA, 'CreateModerationRequest', req.body);
      sendJson(res, 200, { id: 'modr-2', model: 'text-moderation-007', results: [rawResult(['sexual'], {}, true)] });
    });
    const model = openaiModerationModel('omni-moderation-latest', { baseURL: server.url, apiKey: 'sk' });
    const response = await moderate(model, { input: ['caption', { type: 'image', url: 'data:image/png;base64,AAAA' }] });
    expect(server.requests[0]!.body.input).toEqual([
      { type: 'text', text: 'caption' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
    expect(response.results).toHaveLength(1);
    expect(response.results[0]!.categories.illicit).toBe(false);
    expect(response.results[0]!.scores.illicit).toBe(0);
    expect(response.results[0]!.appliedInputTypes).toBeUndefined();
  });

  it('a bad key is an authentication error, the key redacted; bad answers are invalid_response', async () => {
    const server = await serve((_req, res, index) => {
      if (index === 0) return sendJson(res, 401, { error: { message: 'Incorrect API key provided: sk-live-abc.', code: 'invalid_api_key' } });
      sendJson(res, 200, { results: [{ categories: {} }] });
    });
    const model = openaiModerationModel(undefined, { baseURL: server.url, apiKey: 'sk-live-abc' });
    const error = await moderate(model, { input: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'authentication', status: 401 });
    expect((error as Error).message).not.toContain('sk-live-abc');
    await expect(moderate(model, { input: 'x' })).rejects.toMatchObject({ code: 'invalid_response' });
    await expect(moderate(model, { input: [] })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(() => resolveModerationModel('openai:text-embedding-3-small')).toThrow(/not a moderation model/);
  });
});
