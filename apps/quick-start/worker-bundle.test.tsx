// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { buildWorker } from './bench/worker-build.mjs';

// The Worker calls providers; it serves no gateway. The dialects' server side (request decoding,
// response encoding, a third of the package) must stay out of its bundle: the engine reaches the
// dialects through getClientDialect (and decodeStream by id), never getDialect. Size itself is reported by `pnpm bench`.
describe('the quick-start worker bundle', () => {
  it('carries the client side of every dialect and none of the server side', async () => {
    const { metafile } = await buildWorker();
    const inputs = Object.keys(Object.values(metafile.outputs)[0]?.inputs ?? {});
    const dialectFiles = inputs.filter((path) => path.includes('packages/dialects/src/'));
    for (const dialect of ['anthropic-messages', 'openai-completions', 'openai-responses', 'google-gemini', 'ollama-chat']) {
      expect(dialectFiles).toContain(`../../packages/dialects/src/${dialect}/encode.ts`);
      expect(dialectFiles).toContain(`../../packages/dialects/src/${dialect}/decode.ts`);
    }
    expect(dialectFiles.filter((path) => /decode-request|encode-response/.test(path))).toEqual([]);
  });
});
