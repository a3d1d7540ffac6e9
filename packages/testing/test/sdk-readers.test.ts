/**
 * The official SDKs (`openai`, `@anthropic-ai/sdk`, `@google/genai`, `ollama`) read every
 * mock scenario from `serveMockProvider` on 127.0.0.1, streamed and not, and find in their
 * own typed objects and errors what the script said. One server per dialect; the model
 * name picks the scenario.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveMockProvider, type MockProviderServer } from '../src/mock-server/serve.ts';
import { CARRIES_SIGNATURE, SDK_DIALECT, SDKS, sdkTurn, type Observed, type Sdk } from './sdk-clients.ts';
import { expectScenarioRead } from './sdk-expectations.ts';
import { SCENARIO_NAMES, SCENARIOS, type ScenarioName } from './scenarios.ts';

// Real HTTP and real SDKs on a shared 2-core machine: generous per-test time, never a timing assertion.
vi.setConfig({ testTimeout: 30_000 });

const servers = new Map<Sdk, MockProviderServer>();

beforeAll(async () => {
  for (const sdk of SDKS) {
    servers.set(
      sdk,
      await serveMockProvider({
        dialect: SDK_DIALECT[sdk],
        script: (request) => SCENARIOS[SCENARIO_NAMES[Number(/scenario-(\d+)/.exec(request.model ?? '')?.[1] ?? 0)]!],
      }),
    );
  }
});

afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.close()));
});

function modelFor(name: ScenarioName): string {
  return `scenario-${SCENARIO_NAMES.indexOf(name)}`;
}

/** What every SDK must read for each scenario, straight from the mock. */
function expectScenario(sdk: Sdk, name: ScenarioName, stream: boolean, seen: Observed): void {
  expectScenarioRead(sdk, name, stream, seen);
  switch (name) {
    case 'reasoning':
      if (CARRIES_SIGNATURE[sdk]) expect(seen.signature).toBe('sig_EqQBCkgIBxABGAIiQL');
      return;
    case 'parallel tools':
      if (sdk === 'gemini') {
        // Gemini 3 signs the first function call of a turn, not a separate part.
        expect(seen.toolCalls.map((call) => call.signature)).toEqual(['sig_tools_0001', undefined]);
      } else if (sdk !== 'ollama') {
        expect(seen.toolCalls.map((call) => call.id)).toEqual(['call_weather_1', 'call_time_2']);
      }
      return;
    case 'no usage':
      // The Messages API always reports usage: the schema requires it, so the mock reports zeros.
      expect(seen.usage).toEqual(sdk === 'anthropic' ? { input: 0, output: 0 } : undefined);
      return;
    case 'mid-stream error with usage':
    case 'mid-stream error without usage':
      if (!stream) expect(seen.error?.status).toBe(sdk === 'anthropic' ? 529 : 503);
      return;
  }
}

describe.each(SDKS)('the %s SDK reads every mock scenario', (sdk) => {
  for (const stream of [true, false]) {
    it.each(SCENARIO_NAMES)(`%s (${stream ? 'streamed' : 'not streamed'})`, async (name) => {
      const seen = await sdkTurn(sdk, {
        baseURL: servers.get(sdk)!.url,
        apiKey: 'test-key',
        model: modelFor(name),
        stream,
        tools: name === 'parallel tools',
      });
      expectScenario(sdk, name, stream, seen);
    });
  }
});
