import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createThread, forkAt, messageText, siblingsOf, type Message } from '@parlance/protocol';
import { fakeModel } from '@parlance/testing';
import { ChatSession, createEngine, tool } from '../src/index.ts';
import { deleteFile, deleted } from './fixtures/session-tools.ts';

const run = promisify(execFile);

describe('sessions', () => {
  it('a session saved as JSON mid-approval resumes in a fresh process', async () => {
    const model = fakeModel({ script: [{ toolCalls: [{ name: 'delete_file', input: { path: '/tmp/report.txt' } }] }] });
    const engine = createEngine({ model, tools: [deleteFile] });
    const session = ChatSession.create({ id: 'session-1' });
    await session.send(engine, 'Delete /tmp/report.txt');
    expect(session.status).toBe('awaiting-approval');
    expect(session.pending).toMatchObject([{ name: 'delete_file', kind: 'approval' }]);
    expect(deleted).toEqual([]);

    const file = join(mkdtempSync(join(tmpdir(), 'parlance-session-')), 'session.json');
    writeFileSync(file, JSON.stringify(session));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/fixtures/resume-session.ts', file], {
      cwd: join(import.meta.dirname, '..'),
    });
    const child = JSON.parse(stdout) as { before: string; after: string; haltReason: string; deleted: string[]; sent: Message[]; session: { thread: { id: string; messages: Message[] } } };
    expect(child.before).toBe('awaiting-approval');
    expect(child.deleted).toEqual(['/tmp/report.txt']);
    expect(child.haltReason).toBe('completed');
    expect(child.after).toBe('completed');
    expect(child.sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(child.sent[2]!.parts[0]).toMatchObject({ type: 'tool-result', output: 'deleted /tmp/report.txt' });
    expect(child.session.thread.id).toBe('session-1');
    expect(messageText(child.session.thread.messages.at(-1)!)).toBe('The file is gone.');
    // Nothing ran in this process.
    expect(deleted).toEqual([]);
  }, 30_000);

  it('a branched thread: the model gets the active path only, and the other versions survive a send and JSON', async () => {
    const model = fakeModel({ script: [{ text: 'Second answer.' }] });
    const engine = createEngine({ model });
    const text = (id: string, role: Message['role'], t: string): Message => ({ id, role, parts: [{ type: 'text', text: t }] });
    // "Regenerated": the first answer is kept aside as a version of the message after u1.
    const thread = forkAt(createThread('s', [text('u1', 'user', 'hi'), text('a1', 'assistant', 'First answer.')]), 1);
    const session = ChatSession.create({ thread });
    await session.continue(engine);
    expect(model.requests[0]!.messages.map((m) => messageText(m))).toEqual(['hi']);
    const answer = session.thread.messages[1]!;
    expect(messageText(answer)).toBe('Second answer.');
    const reloaded = ChatSession.fromJSON(JSON.stringify(session));
    expect(reloaded.thread.branches).toEqual(thread.branches);
    expect(siblingsOf(reloaded.thread, answer.id)).toEqual({ index: 1, count: 2 });
  });

  it('submitToolResult, deny and answer record decisions that continue sends', async () => {
    const pick = tool({ name: 'pick_color', input: z.object({}) });
    const ask = tool({
      name: 'ask',
      input: z.object({}),
      execute: async (_i, { askUser }) => askUser('Size?'),
    });
    const model = fakeModel({
      script: [
        { toolCalls: [{ name: 'pick_color', input: {} }, { name: 'delete_file', input: { path: '/x' } }, { name: 'ask', input: {} }] },
        { text: 'ok' },
      ],
    });
    const engine = createEngine({ model, tools: [pick, deleteFile, ask] });
    const session = ChatSession.create();
    await session.send(engine, 'go');
    expect(session.status).toBe('awaiting-approval');
    expect(session.pending.map((p) => p.kind)).toEqual(['client-tool', 'approval', 'ask-user']);
    expect(() => session.answer('call_0_0', 'x')).toThrow(/No pending ask-user call/);
    session.submitToolResult('call_0_0', 'blue').deny('call_0_1', 'no').answer('call_0_2', 'large');
    const restored = ChatSession.fromJSON(JSON.stringify(session));
    const result = await restored.continue(engine);
    expect(result.haltReason).toBe('completed');
    expect(restored.status).toBe('completed');
    const results = model.requests[1]!.messages[2]!.parts;
    expect(results.map((p) => (p.type === 'tool-result' ? [p.output, p.isError ?? false] : null))).toEqual([
      ['blue', false],
      ['The user denied this tool call: no', true],
      ['large', false],
    ]);
    expect(restored.toJSON().decisions).toEqual({});
  });
});
