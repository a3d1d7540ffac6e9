/**
 * The default runner: the Parlance engine's multi-step chat loop. The engine is
 * built per run with the runtime's environment (Workers bindings or process.env),
 * so provider keys are read where they live and never travel with a request.
 */
import { createEngine, type EngineOptions, getModelInfo } from '@parlance/engine';
import type { ModelCapabilities, ModelEntry } from '@parlance/protocol';
import type { ChatRunner, Env } from './handler.ts';

export interface EngineRunnerOptions {
  /** Engine settings (tools, system prompt, hooks, model resolver, fetch), or a function of the environment. */
  engine?: Omit<EngineOptions, 'env' | 'generateId'> | ((env: Env) => Omit<EngineOptions, 'env' | 'generateId'>);
}

export function engineRunner(options: EngineRunnerOptions = {}): ChatRunner {
  const settingsFor = (env: Env) => (typeof options.engine === 'function' ? options.engine(env) : (options.engine ?? {}));
  const runner: ChatRunner = (input) => {
    const settings = settingsFor(input.env);
    const engine = createEngine({ ...settings, env: input.env, generateId: () => input.generateId('msg') });
    const call: Parameters<typeof engine.streamChat>[0] = { ...input.options, thread: input.thread, model: input.model, signal: input.signal };
    if (input.resume) call.resume = input.resume;
    return engine.streamChat(call);
  };
  // What the server needs to know before running: whether there are tools (then it must sign), and which
  // configured header values are credentials (to scrub them from every event).
  runner.profile = (env) => {
    const settings = settingsFor(env);
    const secrets = Object.entries(settings.headers ?? {})
      .filter(([name]) => /auth|key|token|secret|cookie|session|password|credential/i.test(name))
      .map(([, value]) => value);
    return { tools: settings.tools?.length ?? 0, secrets };
  };
  return runner;
}

/** Model entries with capabilities from the engine's catalog, for `GET /models`. */
export function catalogModels(ids: string[]): ModelEntry[] {
  return ids.map((id) => {
    const at = id.indexOf(':');
    const provider = at > 0 ? id.slice(0, at) : id;
    const info = getModelInfo(provider, id.slice(at + 1));
    const capabilities: ModelCapabilities = {
      contextWindow: info.contextWindow,
      maxOutputTokens: info.maxOutputTokens,
      input: info.input,
      known: info.known,
    };
    if (info.reasoning !== undefined) capabilities.reasoning = info.reasoning;
    if (info.pricing) capabilities.pricing = info.pricing;
    return { id, provider, capabilities };
  });
}
