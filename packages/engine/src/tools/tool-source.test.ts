import { fakeModel } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngine, tool, type AnyTool, type ToolSource } from '../index.ts';

describe('tool sources', () => {
  it('are read before every model call: a tool added by one round is offered and run in the next', async () => {
    const added: AnyTool[] = [];
    const source: ToolSource = {
      // Async, like a source that waits for a refresh under way.
      currentTools: async () => added,
    };
    const unlock = tool({
      name: 'unlock',
      input: z.object({}),
      execute: () => {
        added.push(tool({ name: 'secret', input: z.object({}), execute: () => 'the secret is 42' }));
        return 'unlocked';
      },
    });
    const model = fakeModel({
      script: [
        { toolCalls: [{ id: 'a', name: 'unlock', input: {} }] },
        { toolCalls: [{ id: 'b', name: 'secret', input: {} }] },
        { text: 'It is 42.' },
      ],
    });
    const result = await createEngine({ model, tools: [unlock, source] }).chat({ prompt: 'go' });
    expect(result.haltReason).toBe('completed');
    expect(model.requests.map((r) => (r.tools ?? []).map((t) => t.name))).toEqual([['unlock'], ['unlock', 'secret'], ['unlock', 'secret']]);
    expect(result.steps[1]!.toolResults).toMatchObject([{ name: 'secret', output: 'the secret is 42' }]);
  });

  it('a name taken twice across sources ends the run with invalid_request', async () => {
    const twice = tool({ name: 'twice', input: z.object({}), execute: () => 1 });
    const model = fakeModel({ script: [{ text: 'hi' }] });
    const result = await createEngine({ model, tools: [twice, { currentTools: () => [twice] }] }).chat({ prompt: 'go' });
    expect(result.haltReason).toBe('error');
    expect(result.error).toMatchObject({ code: 'invalid_request', message: 'Two tools are named "twice"' });
  });

  it('generate offers a source\'s current tools', async () => {
    const echo = tool({ name: 'echo', input: z.object({}), execute: () => 1 });
    const model = fakeModel({ script: [{ text: 'hi' }] });
    await createEngine({ model }).generate({ prompt: 'go', tools: [{ currentTools: () => [echo] }] });
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(['echo']);
  });
});
