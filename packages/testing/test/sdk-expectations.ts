/**
 * What an official SDK must read for a mock scenario wherever the answer came from: the mock
 * provider directly or a gateway in front of any provider. Callers add what depends on the
 * path (signatures, call ids, error statuses).
 */
import { expect } from 'vitest';
import { FINISH, RATE_LIMIT_ERROR, type Observed, type Sdk } from './sdk-clients.ts';
import { USAGE, type ScenarioName } from './scenarios.ts';

export function expectScenarioRead(sdk: Sdk, name: ScenarioName, stream: boolean, seen: Observed): void {
  switch (name) {
    case 'text':
      expect(seen.error).toBeUndefined();
      expect(seen.text).toBe('Hello from the mock provider.');
      expect(seen.finish).toBe(FINISH[sdk].stop);
      expect(seen.usage).toEqual({ input: USAGE.inputTokens, output: USAGE.outputTokens });
      return;
    case 'reasoning':
      expect(seen.error).toBeUndefined();
      expect(seen.text).toBe('Hi!');
      expect(seen.reasoning).toBe('The user greets me; answer briefly.');
      return;
    case 'parallel tools':
      expect(seen.error).toBeUndefined();
      expect(seen.toolCalls.map(({ name: tool, args }) => ({ name: tool, args }))).toEqual([
        { name: 'weather', args: { city: 'Paris' } },
        { name: 'time', args: { zone: 'Europe/Paris', format: '24h' } },
      ]);
      expect(seen.finish).toBe(FINISH[sdk].tools);
      return;
    case 'length stop':
      expect(seen.error).toBeUndefined();
      expect(seen.text).toBe('This answer is cut');
      expect(seen.finish).toBe(FINISH[sdk].length);
      return;
    case 'no usage':
      expect(seen.error).toBeUndefined();
      expect(seen.text).toBe('No counts reported.');
      return;
    case 'http 429':
      expect(seen.error).toMatchObject({ name: RATE_LIMIT_ERROR[sdk], status: 429 });
      expect(seen.error?.message).toContain('Rate limit reached, slow down');
      return;
    case 'mid-stream error with usage':
    case 'mid-stream error without usage':
      expect(seen.error?.message).toMatch(/overloaded/i);
      if (stream) expect(seen.text).toBe('Partial answer ');
      return;
  }
}
