// The demo MCP server (a real child process over stdio) behind the real demo API, through
// @parlance/client's ChatStore: its tool is offered to the model and its result reaches the chat.
import { ChatStore } from '@parlance/client';
import { messageText } from '@parlance/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { createDemoApi } from './api.ts';
import { demoMcpTools } from './demo-mcp.ts';
import { DICE_OFF, DICE_TOOL } from './mock-script.ts';

function store(api: ReturnType<typeof createDemoApi>) {
  const fetch: typeof globalThis.fetch = async (input, init) => api.app.request(input instanceof Request ? input : String(input), init);
  let n = 0;
  return new ChatStore({ api: 'http://demo.local/api', fetch, threadId: 't1', model: 'demo:mock', retryDelayMs: 0, generateId: () => `id${++n}` });
}

const lastAnswer = (chat: ChatStore) => messageText(chat.getSnapshot().thread.messages.filter((m) => m.role === 'assistant').at(-1) ?? { parts: [] });

describe('the demo MCP server', () => {
  const mcp = demoMcpTools();
  afterAll(() => mcp.close());

  it('its roll_dice tool runs in the chat and the answer shows the rolls', async () => {
    const chat = store(createDemoApi({ env: {}, delayScale: 0, ollama: false, extraTools: [mcp] }));
    await chat.send('roll 3 dice');
    const snapshot = chat.getSnapshot();
    expect(snapshot).toMatchObject({ status: 'ready', haltReason: 'completed' });
    const result = snapshot.thread.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool-result');
    expect(result).toMatchObject({ type: 'tool-result', name: DICE_TOOL, output: { sides: 6, rolls: expect.any(Array) } });
    const { rolls, total } = (result as { output: { rolls: number[]; total: number } }).output;
    expect(rolls).toHaveLength(3);
    expect(rolls.every((r) => r >= 1 && r <= 6)).toBe(true);
    expect(lastAnswer(chat)).toContain(`You rolled **${rolls.join(', ')}** (total **${total}**)`);
  }, 30_000);

  it('with approval required for the whole server, the call pauses (signed, like any tool) and runs once approved', async () => {
    const guarded = demoMcpTools({ needsApproval: true });
    try {
      const chat = store(createDemoApi({ env: {}, delayScale: 0, ollama: false, secret: 'a-signing-secret-for-the-mcp-approval-test', extraTools: [guarded] }));
      await chat.send('roll 2 dice');
      expect(chat.getSnapshot()).toMatchObject({ haltReason: 'approval', pending: [{ kind: 'approval', name: DICE_TOOL, input: { count: 2, sides: 6 } }] });
      // The server signed the MCP call like any tool call: only signed calls run after a pause.
      const call = chat.getSnapshot().thread.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool-call');
      expect(call).toMatchObject({ name: DICE_TOOL, signature: expect.any(String) });
      const done = new Promise<void>((resolve) => {
        const stop = chat.subscribe(() => {
          const s = chat.getSnapshot();
          if (s.status === 'ready' && s.haltReason === 'completed') {
            stop();
            resolve();
          }
        });
      });
      void chat.approve(chat.getSnapshot().pending[0]!.toolCallId);
      await done;
      expect(lastAnswer(chat)).toMatch(/^You rolled \*\*\d, \d\*\* \(total \*\*\d+\*\*\)/);
    } finally {
      await guarded.close();
    }
  }, 30_000);

  it('without it, the model has no dice tool and says so', async () => {
    const chat = store(createDemoApi({ env: {}, delayScale: 0, ollama: false }));
    await chat.send('roll a die');
    expect(lastAnswer(chat)).toBe(DICE_OFF);
  });
});
