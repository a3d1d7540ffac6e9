/**
 * How a run is traced. Spans follow the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/) and go to the tracer you give or the
 * tracer provider your app registered with `@opentelemetry/api`: with neither the run is not
 * instrumented at all, and the engine does not import `@opentelemetry/api` (see ./otel-api.ts).
 */
import type { Attributes, Tracer } from './otel-api.ts';

/**
 * The `telemetry` option of an engine or a call.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * const engine = createEngine({
 *   model: 'openai:gpt-5-mini',
 *   telemetry: { tracer: trace.getTracer('my-app'), recordContent: false, agentName: 'support' },
 * });
 * ```
 */
export interface TelemetryOptions {
  /** The tracer (default: `@parlance/engine`'s tracer from the globally registered provider). */
  tracer?: Tracer;
  /**
   * Record prompts, answers, tool arguments, results and definitions on spans
   * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`,
   * `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, `gen_ai.tool.definitions`), and error
   * messages as span status messages (a tool's error or an upstream's error body may quote what it
   * was sent, or a key). Off by default: they may hold personal data; a failed span then carries
   * its `error.type` alone.
   */
  recordContent?: boolean;
  /**
   * More secret values to keep out of every span (an `apiKey` passed in code, a proxy token). The
   * engine's key-like environment values (`envSecrets`) and credential headers are always kept out:
   * every span write has each form of each secret (`secretForms`) replaced by `[redacted]`.
   */
  secrets?: readonly string[];
  /** `gen_ai.agent.name` of the run span, which is then named `invoke_agent {agentName}`. */
  agentName?: string;
  /** More attributes for the run span (a tenant, a user id hash). */
  attributes?: Attributes;
}
