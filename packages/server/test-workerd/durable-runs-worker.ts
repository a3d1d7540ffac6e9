// The app of the durable-run tests in workerd: a Durable Object (`parlanceRunObject`) that runs each
// run itself with the real engine, its model a scripted fake that answers from the request alone (a
// call made again says the same), and two tools that report each start to `toolStarts` (this isolate's
// tests read it: the spy of "at most once"). `tools.hang` makes a tool call last until it is aborted
// or its object is reset, so a reset surely lands inside the call.
import { tool } from '@parlance/engine';
import type { Message } from '@parlance/protocol';
import { z } from 'zod';
import { fakeModel } from '../../testing/src/fake-model.ts';
import type { ScriptedTurn } from '../../testing/src/script.ts';
import { parlanceRunObject } from '../src/durable-objects/index.ts';
import { engineRunner } from '../src/index.ts';
import type { ParlanceServerOptions } from '../src/server-options.ts';

export const FILLER = Array.from({ length: 30 }, (_, i) => `w${i} `);
/** Every tool start, `name:toolCallId`, in any object instance of this isolate. */
export const toolStarts: string[] = [];
export const tools = { hang: false };

/** `text` asks for a plain answer, `tool=<name>` for one call and then an answer with its result. */
function script(request: { messages: Message[] }): ScriptedTurn {
  const last = request.messages.at(-1)!;
  const content = JSON.stringify(last.parts);
  if (last.role === 'tool') {
    const output = (last.parts.find((p) => p.type === 'tool-result') as { output?: unknown } | undefined)?.output;
    return { text: ['The ', 'sum ', 'is ', `${String(output)}. `, ...FILLER], usage: { inputTokens: 9, outputTokens: 35 }, delayMs: 15 };
  }
  const call = /tool=(\w+)/.exec(content);
  if (!call) return { text: FILLER, usage: { inputTokens: 3, outputTokens: 30 }, delayMs: 15 };
  return { toolCalls: [{ id: 'call_add', name: call[1]!, input: { a: 1, b: 2 } }], usage: { inputTokens: 5, outputTokens: 3 } };
}

const adder = (name: string, idempotent: boolean) =>
  tool({
    name,
    input: z.object({ a: z.number(), b: z.number() }),
    idempotent,
    execute: async ({ a, b }, { toolCallId, signal }) => {
      toolStarts.push(`${name}:${toolCallId}`);
      if (tools.hang) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return a + b;
    },
  });

/** The options the Worker's app and the object share (the object gets its own store). */
export const durableOptions: Omit<ParlanceServerOptions, 'store'> = {
  models: [{ id: 'mock:durable', provider: 'mock' }],
  env: { NODE_ENV: 'test' },
  secret: 'a-durable-runs-test-signing-secret-0123456789',
  run: engineRunner({ engine: { tools: [adder('add', false), adder('add_idempotent', true)], resolveModel: () => fakeModel({ script: (request) => script(request) }) } }),
};

export const ParlanceDurableRuns = parlanceRunObject(durableOptions);
