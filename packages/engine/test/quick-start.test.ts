// The README quick start, run as written (with the scripted fake model standing in
// for 'openai:gpt-5-mini' so it needs no key).
import { expect, it } from 'vitest';
import { z } from 'zod';
import { messageText } from '@parlance/protocol';
import { fakeModel } from '@parlance/testing';
import { createEngine, tool } from '@parlance/engine';

it('quick start: a chat with one tool', async () => {
  const model = fakeModel({
    script: [{ toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }] }, { text: 'It is 21°C in Oslo.' }],
  });

  const weather = tool({
    name: 'weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, temperatureC: 21 }),
  });

  const engine = createEngine();
  const result = await engine.chat({
    model, // or 'openai:gpt-5-mini' with OPENAI_API_KEY set
    messages: [{ role: 'user', content: 'What is the weather in Oslo?' }],
    tools: [weather],
  });

  expect(result.haltReason).toBe('completed');
  expect(messageText(result.thread.messages.at(-1)!)).toBe('It is 21°C in Oslo.');
});
