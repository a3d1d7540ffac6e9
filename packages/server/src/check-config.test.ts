import { tool } from '@parlance/engine';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { chatRequest, userThread } from '../test/helpers.ts';
import { checkConfig, configProblems } from './check-config.ts';
import { engineRunner } from './engine-runner.ts';
import { createParlanceApp, createParlanceHandler } from './handler.ts';

const GOOD = 'a'.repeat(32);
const execute = vi.fn(() => 1);
const run = engineRunner({ engine: { tools: [tool({ name: 't', input: z.object({}), execute })] } });
const models = [{ id: 'm', provider: 'mock' }];

describe('configuration, checked once: never at build, at the first request, and by checkConfig at start', () => {
  const bad: [string, Record<string, string>, { secret?: string | string[] }, RegExp][] = [
    ['a short PARLANCE_SECRET_PREVIOUS', { PARLANCE_SECRET: GOOD, PARLANCE_SECRET_PREVIOUS: 'short-previous' }, {}, /PARLANCE_SECRET_PREVIOUS \(entry 1\) is 14 characters long/],
    ['a short second PARLANCE_SECRET_PREVIOUS entry', { PARLANCE_SECRET: GOOD, PARLANCE_SECRET_PREVIOUS: `${GOOD},tiny` }, {}, /PARLANCE_SECRET_PREVIOUS \(entry 2\) is 4 characters long/],
    ['a short PARLANCE_SECRET', { PARLANCE_SECRET: 'short' }, {}, /PARLANCE_SECRET is 5 characters long/],
    ['PARLANCE_SECRET_PREVIOUS without PARLANCE_SECRET', { PARLANCE_SECRET_PREVIOUS: GOOD }, {}, /PARLANCE_SECRET_PREVIOUS is set but PARLANCE_SECRET is not/],
    ['a short `secret` option entry', {}, { secret: [GOOD, 'old'] }, /`secret` option \(entry 2\) is 3 characters long/],
    ['tools and no secret', {}, {}, /needs a signing secret/],
  ];

  it.each(bad)('%s: checkConfig throws naming it; the app builds, and its first request answers the typed error', async (_name, env, extra, message) => {
    expect(() => checkConfig({ run, ...extra, env })).toThrow(expect.objectContaining({ code: 'server_error', message: expect.stringMatching(message) }));
    const errors: unknown[] = [];
    // A Next.js route file: built at module scope, where `next build` has no environment. Nothing is checked here.
    const handler = createParlanceHandler({ models, run, ...extra, env, onError: (e) => errors.push(e) });
    for (let i = 0; i < 3; i++) {
      const res = await handler(new Request('http://localhost/chat', chatRequest({ thread: userThread, clientRequestId: `c${i}` })));
      expect(res.status).toBe(500);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('server_error');
      expect(error.message).toMatch(message);
    }
    expect(errors).toHaveLength(1);
    expect(execute).not.toHaveBeenCalled();
  });

  it('a good configuration passes, with a rotation list, in development, or without tools', () => {
    expect(configProblems({ run }, { PARLANCE_SECRET: GOOD, PARLANCE_SECRET_PREVIOUS: ` ${GOOD} , ${'b'.repeat(40)} ,` })).toEqual([]);
    expect(configProblems({ run, secret: [GOOD, GOOD] }, {})).toEqual([]);
    expect(configProblems({ run }, { NODE_ENV: 'development' })).toEqual([]);
    expect(configProblems({ run: engineRunner() }, {})).toEqual([]);
  });

  it('never checks at construction, even with process.env holding a bad key', () => {
    const saved = process.env.PARLANCE_SECRET_PREVIOUS;
    process.env.PARLANCE_SECRET_PREVIOUS = 'short';
    try {
      expect(() => createParlanceApp({ models, run })).not.toThrow();
      expect(() => checkConfig({ run })).toThrow(/PARLANCE_SECRET_PREVIOUS/);
    } finally {
      if (saved === undefined) delete process.env.PARLANCE_SECRET_PREVIOUS;
      else process.env.PARLANCE_SECRET_PREVIOUS = saved;
    }
  });
});
