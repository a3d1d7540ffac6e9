import { ParlanceError, type FinishReason, type HaltReason, type Response, type ToolCallPart } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { Halt, answeredHalt, haltOfError, modelEndHalt, pauseHalt, toolErrorHalt } from './halt.ts';
import { HookError } from './run-tool.ts';

const responseOf = (finishReason: FinishReason, error?: { code: 'overloaded'; message: string }) => ({ finishReason, ...(error ? { error } : {}) }) as Response;

describe('the halt decisions', () => {
  const modelEnds: [FinishReason, HaltReason | undefined][] = [
    ['stop', undefined],
    ['tool-calls', undefined],
    ['pause', undefined],
    ['error', 'error'],
    ['cancelled', 'error'],
    ['length', 'length'],
    ['content-filter', 'content-filter'],
    ['refusal', 'content-filter'],
  ];
  it.each(modelEnds)('a response that finished with %s halts with %s', (reason, halt) => {
    expect(modelEndHalt(responseOf(reason))?.reason).toBe(halt);
  });

  it("keeps a failed response's error, or names an unknown one", () => {
    expect(modelEndHalt(responseOf('error', { code: 'overloaded', message: 'busy' }))).toEqual(new Halt('error', { code: 'overloaded', message: 'busy' }));
    expect(modelEndHalt(responseOf('error'))?.error?.code).toBe('unknown');
  });

  it('pauses for an approval first, then a question, then a client tool', () => {
    expect(pauseHalt(new Set())).toBeUndefined();
    expect(pauseHalt(new Set(['client-tool', 'ask-user', 'approval']))?.reason).toBe('approval');
    expect(pauseHalt(new Set(['client-tool', 'ask-user']))?.reason).toBe('ask-user');
    expect(pauseHalt(new Set(['client-tool']))?.reason).toBe('client-tool-calls');
  });

  const failed = { type: 'result' as const, call: { type: 'tool-call', id: 'c1', name: 'f', input: { x: 1 } } as ToolCallPart, output: 'disk full', isError: true, toolError: new Error('disk full') };

  it('halts on a failed tool as the policy says (a value or a function of the failure)', () => {
    expect(toolErrorHalt('halt', failed)).toEqual(new Halt('tool-error', { code: 'tool_error', message: 'disk full' }));
    expect(toolErrorHalt('continue', failed)).toBeUndefined();
    const seen: unknown[] = [];
    const policy = (error: unknown, call: { name: string }) => {
      seen.push(error, call.name);
      return 'halt' as const;
    };
    expect(toolErrorHalt(policy, failed)?.reason).toBe('tool-error');
    expect(seen).toEqual([failed.toolError, 'f']);
    expect(toolErrorHalt('halt', { ...failed, toolError: undefined, isError: false })).toBeUndefined();
  });

  it('completes an answer without tool calls that did not pause', () => {
    expect(answeredHalt(responseOf('stop'), 0)).toEqual(new Halt('completed'));
    expect(answeredHalt(responseOf('tool-calls'), 2)).toBeUndefined();
    expect(answeredHalt(responseOf('pause'), 0)).toBeUndefined();
  });

  it('reads an exception out of the loop: a thrown halt, a cancel, a hook, anything else', () => {
    expect(haltOfError(new Halt('approval'), false).reason).toBe('approval');
    expect(haltOfError(new Error('x'), true).reason).toBe('cancelled');
    expect(haltOfError(new HookError('onEvent', new Error('boom')), false)).toEqual(new Halt('error', { code: 'unknown', message: 'The onEvent hook threw: boom' }));
    expect(haltOfError(new ParlanceError('rate_limited', 'slow'), false)).toEqual(new Halt('error', { code: 'rate_limited', message: 'slow' }));
  });
});
