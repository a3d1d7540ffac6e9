// Placeholder until this dialect lands: a dialect object whose decoder reports that it is not implemented.
import type { Dialect } from '../types.ts';
import { createStreamState } from '../shared/stream-state.ts';

export const openaiResponses: Dialect = {
  id: 'openai_responses',
  framing: 'sse',
  path: () => '/',
  encodeRequest: () => ({}),
  createDecoder() {
    const state = createStreamState();
    return {
      push: () => [],
      end: () => { const out: never[] = []; state.endOfStream(out); return out; },
      fail: (failure) => { const out: never[] = []; state.fail(out, failure); return out; },
    };
  },
};
