/**
 * The demo's API: the Parlance server app with the engine behind it, mounted under
 * /api by the Vite dev server (vite.config.ts) and by the production server
 * (server.ts). With no key set, the only model is the built-in mock: the engine
 * talks to `mockProviderServer` in the Anthropic Messages wire format through an
 * injected fetch, so the whole HTTP, decoding and tool path runs with no network.
 */
import { type AnyTool, defineProvider, resolveModel, type ToolSource } from '@parlance/engine';
import { createMemoryBlobStore, createParlanceApp, type Env, engineRunner, type ParlanceServerOptions } from '@parlance/server';
import { type MockProviderHandler, mockProviderServer } from '@parlance/testing';
import { Hono } from 'hono';
import { withMessageUsage } from './message-usage.ts';
import { demoScript, SMALL_MODEL, SMALL_WINDOW } from './mock-script.ts';
import { availableModels, MOCK_MODEL_ID, MOCK_MODEL_NAME, ollamaProbe } from './models.ts';
import { demoTools } from './tools.ts';

export interface DemoApiOptions {
  /** Where provider keys are read (default process.env). */
  env?: Env;
  /** Multiplies the mock's per-delta delays (0 for fast tests). */
  delayScale?: number;
  /** Look for a local Ollama (default true). */
  ollama?: boolean;
  /**
   * The key that signs tool calls and pauses (default: PARLANCE_SECRET, else one made up for this
   * process: a thread paused before a restart can then not be resumed, only continued with a new message).
   */
  secret?: string;
  /** More tools next to the demo's own (the demo MCP server's, from server.ts and dev-api.ts). */
  extraTools?: (AnyTool | ToolSource)[];
}

let generated: string | undefined;

/** 64 random hex characters, made once per process (on first use): the demo's signing key when none is configured. */
function processSecret(): string {
  generated ??= Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('');
  return generated;
}

const SYSTEM = [
  'You are the assistant in the Parlance demo chat. Answer concisely in Markdown.',
  'Use get_weather for weather questions (the user approves each call) and get_time for the time.',
  'Use roll_dice (from the demo MCP server) to roll dice.',
].join(' ');

/**
 * The demo's `models`, `defaultModel` and `run` for `createParlanceApp` / `createParlanceHandler`:
 * the mock model always, real providers whose key is set, and the signing secret. The framework apps (apps/next,
 * apps/react-router) serve these from their routes.
 */
export function demoServerOptions(options: DemoApiOptions = {}): Pick<ParlanceServerOptions, 'models' | 'defaultModel' | 'run' | 'secret' | 'files'> & { mock: MockProviderHandler } {
  const mock: MockProviderHandler = mockProviderServer({
    dialect: 'anthropic_messages',
    script: demoScript({ delayScale: options.delayScale ?? 1 }),
    encoder: { model: 'demo-mock' },
  });
  const demo = defineProvider(
    {
      id: 'demo',
      name: MOCK_MODEL_NAME,
      // Never contacted: every request goes to the mock through the fetch below.
      baseURL: 'http://demo-mock.invalid',
      auth: 'none',
      dialect: 'anthropic_messages',
      // Made-up prices, so the demo shows what cost per message looks like.
      models: {
        // Images (and PDFs, which take the image modality): attachments are described by their bytes.
        mock: { contextWindow: 32_000, maxOutputTokens: 4_096, input: ['text', 'image'], reasoning: true, pricing: { input: 1, output: 4 } },
        // A window small enough that a few exchanges outgrow it: the engine's context policy summarizes.
        [SMALL_MODEL]: { contextWindow: SMALL_WINDOW, maxOutputTokens: 1_024, input: ['text'], reasoning: true, pricing: { input: 1, output: 4 } },
      },
    },
    {
      fetch: async (input, init) => mock(new Request(input, init)),
      // Show the scripted provider error at once instead of retrying it.
      retry: false,
    },
  );
  const probe = options.ollama === false ? undefined : ollamaProbe();
  const env = options.env ?? process.env;
  return {
    mock,
    secret: options.secret ?? env.PARLANCE_SECRET ?? processSecret(),
    models: (env) => availableModels(env, probe),
    defaultModel: MOCK_MODEL_ID,
    // Attachments are uploaded once (POST /api/files) and kept in this process's memory (64 MiB,
    // oldest dropped first): a restart forgets them, and a thread that references one then fails to send it.
    files: { store: createMemoryBlobStore(), maxFileBytes: 10 * 1024 * 1024 },
    run: withMessageUsage(
      engineRunner({
        engine: {
          system: SYSTEM,
          tools: [...demoTools, ...(options.extraTools ?? [])],
          // A thread that outgrows a model's window keeps working: older turns become a summary.
          context: { strategy: 'summarize' },
          resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { demo } }),
        },
      }),
    ),
  };
}

export function createDemoApi(options: DemoApiOptions = {}) {
  const { mock, ...served } = demoServerOptions(options);
  const parlance = createParlanceApp({ ...(options.env ? { env: options.env } : {}), ...served });
  const app = new Hono();
  app.route('/api', parlance);
  return { app, parlance, mock, options: served };
}
