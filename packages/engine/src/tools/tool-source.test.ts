import { fakeModel } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngine, tool, type AnyTool, type ToolSource } from '../index.ts';

const own = tool({ name: 'own', input: z.object({}), execute: () => 'mine' });
const remote = (name: string) => tool({ name, input: z.object({}), execute: () => 'theirs' });

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

  it.each([
    { case: 'a source reuses a plain tool\'s name', tools: () => [own, { currentTools: () => [remote('own'), remote('extra')] }], offered: ['own', 'extra'], warning: 'Two tools are named "own": the one from a tool source is left out' },
    { case: 'two sources share a name', tools: () => [own, { currentTools: () => [remote('shared')] }, { currentTools: () => [remote('shared')] }], offered: ['own', 'shared'], warning: 'Two tools are named "shared": the one from a tool source is left out' },
    { case: 'a source lists one name twice', tools: () => [own, { currentTools: () => [remote('dup'), remote('dup')] }], offered: ['own', 'dup'], warning: 'Two tools are named "dup": the one from a tool source is left out' },
    { case: 'a source fails to list', tools: () => [own, { currentTools: async () => { throw new Error('server gone'); } }], offered: ['own'], warning: 'A tool source could not list its tools, so none of them is offered: server gone' },
  ])('a run that does not need it goes on when $case: the colliding tool alone is left out, with one warning', async ({ tools, offered, warning }) => {
    const model = fakeModel({ script: [{ toolCalls: [{ id: 'a', name: 'own', input: {} }] }, { text: 'done' }] });
    const events = [];
    for await (const event of createEngine({ model, tools: tools() as never }).streamChat({ prompt: 'go' })) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
    expect(model.requests.map((r) => r.tools?.map((t) => t.name))).toEqual([offered, offered]);
    expect(events.filter((e) => e.type === 'warning')).toEqual([{ type: 'warning', setting: 'tools', message: warning }]);
    // The app's own tool is the one that ran.
    expect(events.find((e) => e.type === 'tool-result')).toMatchObject({ output: 'mine' });
  });

  it('generate offers a source\'s current tools', async () => {
    const echo = tool({ name: 'echo', input: z.object({}), execute: () => 1 });
    const model = fakeModel({ script: [{ text: 'hi' }] });
    await createEngine({ model }).generate({ prompt: 'go', tools: [{ currentTools: () => [echo] }] });
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(['echo']);
  });
});
