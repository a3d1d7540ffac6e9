/**
 * The mock provider's scenarios that every reader must get right (issue #14): text,
 * reasoning, parallel tools, a length stop, no usage, an HTTP 429, a mid-stream error with
 * and without usage. Shared by the schema test and the official-SDK readers.
 */
import type { ScriptedTurn } from '../src/script.ts';

export const USAGE = { inputTokens: 21, outputTokens: 9 } as const;

export const SCENARIOS = {
  text: { text: 'Hello from the mock provider.', usage: USAGE },
  reasoning: {
    reasoning: 'The user greets me; answer briefly.',
    reasoningSignature: 'sig_EqQBCkgIBxABGAIiQL',
    text: 'Hi!',
    usage: { ...USAGE, reasoningTokens: 6 },
  },
  'parallel tools': {
    reasoning: 'Two lookups are needed.',
    reasoningSignature: 'sig_tools_0001',
    toolCalls: [
      { id: 'call_weather_1', name: 'weather', input: { city: 'Paris' } },
      { id: 'call_time_2', name: 'time', input: { zone: 'Europe/Paris', format: '24h' } },
    ],
    usage: USAGE,
  },
  'length stop': { text: 'This answer is cut', finishReason: 'length', usage: USAGE },
  'no usage': { text: 'No counts reported.' },
  'http 429': { error: { code: 'rate_limited', message: 'Rate limit reached, slow down', status: 429 } },
  'mid-stream error with usage': {
    text: ['Partial ', 'answer ', 'then'],
    usage: USAGE,
    error: { code: 'overloaded', message: 'The upstream model is overloaded', afterEvents: 4 },
  },
  'mid-stream error without usage': {
    text: ['Partial ', 'answer ', 'then'],
    error: { code: 'overloaded', message: 'The upstream model is overloaded', afterEvents: 4 },
  },
} satisfies Record<string, ScriptedTurn>;

export type ScenarioName = keyof typeof SCENARIOS;

export const SCENARIO_NAMES = Object.keys(SCENARIOS) as ScenarioName[];
