import type { Usage } from '@parlance/protocol';
import { runConformance, type Expected, type Fixture } from '../../test/conformance.ts';
import { googleGemini } from './index.ts';

/** Sets `value` at a `$.a.b[0]` path, appending when a string continues (read straight from the recording). */
function setPath(root: Record<string, unknown>, path: string, value: unknown, append: boolean) {
  const keys = path
    .replace(/^\$/, '')
    .split(/\.|\[(\d+)\]/)
    .filter((k) => k !== undefined && k !== '')
    .map((k) => (/^\d+$/.test(k) ? Number(k) : k));
  let node: any = root;
  keys.slice(0, -1).forEach((key, i) => {
    node[key] ??= typeof keys[i + 1] === 'number' ? [] : {};
    node = node[key];
  });
  const leaf = keys[keys.length - 1]!;
  node[leaf] = append ? (node[leaf] ?? '') + value : value;
}

function expectFromRecording(fixture: Fixture): Expected {
  let text = '';
  let reasoning = '';
  const toolCalls: { name: string; input: unknown }[] = [];
  let usage: Usage | undefined;
  let finish: string | undefined;
  let continuing: string | undefined;
  for (const { data } of fixture.payloads) {
    const candidate = data.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (typeof part.text === 'string') {
        if (part.thought) reasoning += part.text;
        else text += part.text;
      }
      const fc = part.functionCall;
      if (!fc) continue;
      if (fc.name) toolCalls.push({ name: fc.name, input: fc.args ?? {} });
      for (const arg of fc.partialArgs ?? []) {
        const value = arg.stringValue ?? arg.numberValue ?? arg.boolValue ?? null;
        setPath(toolCalls[toolCalls.length - 1]!.input as Record<string, unknown>, arg.jsonPath, value, continuing === arg.jsonPath);
        continuing = arg.willContinue ? arg.jsonPath : undefined;
      }
    }
    if (candidate?.finishReason) finish = candidate.finishReason;
    const meta = data.usageMetadata;
    if (meta?.promptTokenCount !== undefined) {
      usage = {
        inputTokens: meta.promptTokenCount,
        outputTokens: (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0),
        totalTokens: meta.totalTokenCount,
      };
      if (meta.thoughtsTokenCount !== undefined) usage.reasoningTokens = meta.thoughtsTokenCount;
      if (meta.cachedContentTokenCount !== undefined) usage.cacheReadTokens = meta.cachedContentTokenCount;
    }
  }
  const expected: Expected = { text, reasoning, toolCalls };
  if (usage) expected.usage = usage;
  if (finish === 'STOP') expected.finishReason = toolCalls.length ? 'tool-calls' : 'stop';
  else if (finish === 'MAX_TOKENS') expected.finishReason = 'length';
  return expected;
}

runConformance(googleGemini, expectFromRecording);
