// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { buildWorker } from './bench/worker-build.mjs';

// The Worker calls Anthropic only, imported from its own entry point (`@parlance/engine/providers/anthropic`):
// its bundle holds the Anthropic dialect's client side and Anthropic's catalog table, and no other
// provider's dialect or table; and it serves no gateway, so none of the dialects' server side (request
// decoding, response encoding). Size itself is reported by `pnpm bench` and held by tooling/publish's ships test.
describe('the quick-start worker bundle', () => {
  it('carries the Anthropic dialect client side and catalog table, and nothing of the other providers', async () => {
    const { metafile } = await buildWorker();
    const inputs = Object.keys(Object.values(metafile.outputs)[0]?.inputs ?? {});
    const dialectFiles = inputs.filter((path) => path.includes('packages/dialects/src/'));
    expect(dialectFiles).toContain('../../packages/dialects/src/anthropic-messages/encode.ts');
    expect(dialectFiles).toContain('../../packages/dialects/src/anthropic-messages/decode.ts');
    for (const dialect of ['openai-completions', 'openai-responses', 'google-gemini', 'ollama-chat']) {
      expect(dialectFiles.filter((path) => path.includes(`/${dialect}/`)), dialect).toEqual([]);
    }
    expect(dialectFiles.filter((path) => /decode-request|encode-response|registry/.test(path))).toEqual([]);
    const tables = inputs.filter((path) => path.includes('packages/engine/src/catalog/'));
    expect(tables.sort()).toEqual(['../../packages/engine/src/catalog/model-info.ts', '../../packages/engine/src/catalog/models/anthropic.ts']);
    expect(inputs.filter((path) => /providers\/(builtin\/(openai|google|ollama|chat-completions-vendors)|full-kit|resolve-model)\.ts/.test(path))).toEqual([]);
  });
});
