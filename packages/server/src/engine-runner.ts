/**
 * The default runner: the Parlance engine's multi-step chat loop. The engine is
 * built per run with the runtime's environment (Workers bindings or process.env),
 * so provider keys are read where they live and never travel with a request.
 */
import { createEngine, createEngineWith, type Engine, type EngineOptions, getModelInfo, isTool, type ModelInfo, type Provider, type ProviderModel, tool } from '@parlance/engine';
import { type ModelCapabilities, type ModelEntry, ParlanceError, type ToolDefinition } from '@parlance/protocol';
import type { ChatRunner, Env } from './server-options.ts';

/**
 * 
 *
 * @example
 * engineRunner({ engine: { system: 'You are terse.', tools: [weather] } });
 */
export interface EngineRunnerOptions {
  /** Engine settings (tools, system prompt, hooks, model resolver, fetch), or a function of the environment. */
  engine?: Omit<EngineOptions, 'env' | 'generateId'> | ((env: Env) => Omit<EngineOptions, 'env' | 'generateId'>);
}

/**
 * Runs each chat with `@parlance/engine`: the server's tools, system prompt and hooks, keys from the server's environment.
 *
 * @example
 * const run = engineRunner({ engine: (env) => ({ system: 'Be brief.', tools: [weather], maxSteps: Number(env.MAX_STEPS ?? 8) }) });
 */
export function engineRunner(options: EngineRunnerOptions = {}): ChatRunner {
  return runnerFrom(createEngine, options);
}

/**
 * `engineRunner` whose model ids resolve against `providers` only (the engine's `createEngineWith`):
 * a Worker bundle then holds those providers' dialects and catalog tables and no others.
 *
 * @example
 * import { anthropic } from '@parlance/engine/providers/anthropic';
 * const run = engineRunnerWith([anthropic], { engine: { tools: [weather] } });
 */
export function engineRunnerWith(providers: readonly Provider[], options: EngineRunnerOptions = {}): ChatRunner {
  return runnerFrom((settings) => createEngineWith(providers, settings), options);
}

function runnerFrom(create: (options: EngineOptions) => Engine, options: EngineRunnerOptions): ChatRunner {
  const settingsFor = (env: Env) => (typeof options.engine === 'function' ? options.engine(env) : (options.engine ?? {}));
  const runner: ChatRunner = (input) => {
    // A refusal here throws before the engine starts; the run ends with it like any other runner failure.
    const settings = withClientTools(settingsFor(input.env), input.clientTools);
    const engine = create({ ...settings, env: input.env, generateId: () => input.generateId('msg'), ...(input.files ? { files: input.files } : {}) });
    const call: Parameters<typeof engine.streamChat>[0] = { ...input.options, thread: input.thread, model: input.model, signal: input.signal };
    if (input.resume) call.resume = input.resume;
    if (input.checkpoint) call.checkpoint = input.checkpoint;
    return engine.streamChat(call);
  };
  // What the server needs to know before running: whether there are tools (then it must sign), and which
  // configured header values are credentials (to scrub them from every event).
  runner.profile = (env) => {
    const settings = settingsFor(env);
    const secrets = Object.entries(settings.headers ?? {})
      .filter(([name]) => /auth|key|token|secret|cookie|session|password|credential/i.test(name))
      .map(([, value]) => value);
    return { tools: settings.tools?.length ?? 0, secrets, checkpoints: true };
  };
  return runner;
}

/**
 * The server's settings plus the browser's declared tools as client tools (no `execute`: the run
 * pauses for the browser's result). A declared name a server tool has is refused, so a browser
 * cannot turn a server tool (one that needs approval, say) into one it answers itself.
 */
function withClientTools(settings: Omit<EngineOptions, 'env' | 'generateId'>, declared: ToolDefinition[] | undefined): Omit<EngineOptions, 'env' | 'generateId'> {
  if (!declared?.length) return settings;
  const taken = new Set((settings.tools ?? []).filter(isTool).map((t) => t.name));
  const added = declared.map((definition) => {
    if (taken.has(definition.name)) {
      throw new ParlanceError('permission', `A client tool may not be named "${definition.name}": the server has a tool of that name`, { status: 403 });
    }
    return tool({ name: definition.name, ...(definition.description !== undefined ? { description: definition.description } : {}), input: definition.inputSchema });
  });
  return { ...settings, tools: [...(settings.tools ?? []), ...added] };
}

/**
 * Model entries with capabilities from the engine's catalog, for `GET /models`.
 *
 * @example
 * const models = catalogModels(['anthropic:claude-sonnet-4-5', 'openai:gpt-5-mini']);
 * createParlanceApp({ models, run: engineRunner() });
 */
export function catalogModels(ids: string[]): ModelEntry[] {
  return ids.map((id) => {
    const at = id.indexOf(':');
    const provider = at > 0 ? id.slice(0, at) : id;
    return modelEntry(id, provider, getModelInfo(provider, id.slice(at + 1)));
  });
}

/**
 * Model entries for `GET /models` from provider models (`anthropic.model('claude-sonnet-4-5')`), with
 * each model's own catalog data: the id is `provider:model`, as `engineRunnerWith` resolves it.
 * Unlike `catalogModels` it bundles no catalog table beyond those of the providers used.
 *
 * @example
 * import { anthropic } from '@parlance/engine/providers/anthropic';
 * createParlanceApp({ models: modelEntries([anthropic.model('claude-sonnet-4-5')]), run: engineRunnerWith([anthropic]) });
 */
export function modelEntries(models: readonly ProviderModel[]): ModelEntry[] {
  return models.map((model) => modelEntry(`${model.provider}:${model.modelId}`, model.provider, model.info));
}

function modelEntry(id: string, provider: string, info: ModelInfo): ModelEntry {
  const capabilities: ModelCapabilities = {
    contextWindow: info.contextWindow,
    maxOutputTokens: info.maxOutputTokens,
    input: info.input,
    known: info.known,
  };
  if (info.reasoning !== undefined) capabilities.reasoning = info.reasoning;
  if (info.pricing) capabilities.pricing = info.pricing;
  return { id, provider, capabilities };
}
