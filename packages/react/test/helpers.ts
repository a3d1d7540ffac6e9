export { answer, createMockServer, pausedTurn, type MockRun } from '../../client/test/mock-server.ts';
import type { Message } from '@parlance/protocol';

export const textOf = (m: Message | undefined) => m?.parts.map((p) => ('text' in p ? p.text : '')).join('') ?? '';

/** A controllable requestAnimationFrame: callbacks wait until `frame()`. */
export function manualFrames() {
  let queue: FrameRequestCallback[] = [];
  let frames = 0;
  const raf = (cb: FrameRequestCallback) => (queue.push(cb), queue.length);
  return {
    raf,
    get frames() {
      return frames;
    },
    get waiting() {
      return queue.length;
    },
    frame() {
      const run = queue;
      queue = [];
      if (run.length) frames++;
      for (const cb of run) cb(performance.now());
    },
  };
}
