import type { Thread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { exportFileName, threadToJson, threadToMarkdown } from './export-thread.ts';

const thread: Thread = {
  id: 't1',
  messages: [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'weather in Paris' }] },
    {
      id: 'a1',
      role: 'assistant',
      provenance: { provider: 'demo', model: 'mock', dialect: 'anthropic_messages' },
      parts: [
        { type: 'reasoning', text: 'scratch work' },
        { type: 'tool-call', id: 'c1', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    { id: 'r1', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', name: 'get_weather', output: { tempC: 21 } }] },
    {
      id: 'a2',
      role: 'assistant',
      parts: [{ type: 'text', text: 'It is **21°C**.\n\n````md\n```js\nx\n```\n````' }],
      metadata: { usage: { inputTokens: 12, outputTokens: 5 } },
    },
    { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'error' }] },
    { id: 'a3', role: 'assistant', parts: [], error: { code: 'overloaded', message: 'The provider is overloaded', retryable: true } },
  ],
} as Thread;

describe('threadToMarkdown', () => {
  const md = threadToMarkdown(thread, 'Weather in Paris');

  it('writes who said what, tool calls and results as JSON blocks, usage and errors, and no reasoning', () => {
    expect(md).toMatch(/^# Weather in Paris\n\n## You\n\nweather in Paris\n\n## Assistant \(demo:mock\)\n\nTool call `get_weather`:/);
    expect(md).toContain('```json\n{\n  "city": "Paris"\n}\n```');
    expect(md).toContain('## Tool\n\nResult of `get_weather`:\n\n```json\n{\n  "tempC": 21\n}\n```');
    expect(md).toContain('It is **21°C**.');
    expect(md).toContain('*12 in · 5 out*');
    expect(md).toContain('*No answer: The provider is overloaded*');
    expect(md).not.toContain('scratch work');
  });

  it('keeps a text that itself holds fences as it was', () => {
    expect(md).toContain('````md\n```js\nx\n```\n````');
  });
});

describe('threadToJson', () => {
  it('is the whole thread with its title, loadable again', () => {
    expect(JSON.parse(threadToJson(thread, 'Weather'))).toEqual({ title: 'Weather', thread });
  });
});

describe('exportFileName', () => {
  it.each([
    ['Weather in Paris?', 'md', 'weather-in-paris.md'],
    ['  ', 'json', 'chat.json'],
    ['Ünïcödé — «quotes» / slashes\\', 'md', 'unicode-quotes-slashes.md'],
    ['x'.repeat(100), 'md', `${'x'.repeat(60)}.md`],
  ])('%j -> %s', (title, extension, name) => {
    expect(exportFileName(title, extension)).toBe(name);
  });
});
