import type { ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { getDialect } from '../registry.ts';

const ask = (model: string, extra: Partial<ModelRequest>): ModelRequest => ({ model, messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }], ...extra });

function encode(dialect: 'anthropic_messages' | 'openai_responses', request: ModelRequest) {
  const warnings: string[] = [];
  const body = getDialect(dialect).encodeRequest(request, { onWarning: (w) => warnings.push(w.setting) });
  return { body, warnings };
}

/** A dialect used alone writes only bodies the model accepts, and says what it left out. */
describe('the model sampling rules, in the dialects alone', () => {
  it.each([
    { model: 'claude-sonnet-4-5', sent: { temperature: 0.2 }, left: ['topP'] },
    { model: 'claude-opus-4-1', sent: { temperature: 0.2 }, left: ['topP'] },
    { model: 'claude-haiku-4.5', sent: { temperature: 0.2 }, left: ['topP'] },
    { model: 'claude-sonnet-4-20250514', sent: { temperature: 0.2, top_p: 0.9 }, left: [] },
  ])('Anthropic $model with temperature and top_p', ({ model, sent, left }) => {
    const { body, warnings } = encode('anthropic_messages', ask(model, { temperature: 0.2, topP: 0.9, maxOutputTokens: 100 }));
    expect({ temperature: body.temperature, top_p: body.top_p }).toEqual({ top_p: undefined, ...sent });
    expect(warnings).toEqual(left);
  });

  it.each([
    { model: 'gpt-5', thinking: undefined, left: ['temperature', 'topP'] },
    { model: 'o4-mini', thinking: { effort: 'low' as const }, left: ['temperature', 'topP'] },
    { model: 'gpt-5.1', thinking: undefined, left: [] },
    { model: 'gpt-5.1', thinking: { effort: 'medium' as const }, left: ['temperature', 'topP'] },
    { model: 'gpt-5', thinking: false as const, left: [] },
    { model: 'gpt-4.1', thinking: undefined, left: [] },
  ])('Responses $model with sampling settings (thinking $thinking)', ({ model, thinking, left }) => {
    const { body, warnings } = encode('openai_responses', ask(model, { temperature: 0.2, topP: 0.9, ...(thinking === undefined ? {} : { thinking }) }));
    expect(warnings.filter((w) => w === 'temperature' || w === 'topP')).toEqual(left);
    expect('temperature' in body).toBe(left.length === 0);
    expect('top_p' in body).toBe(left.length === 0);
  });
});
