/** What one run of the loop is given: the model, the thread, the request, the tools, the limits and the hooks. */
import type { LanguageModel, Message, ModelRequest } from '@parlance/protocol';
import type { ContextPolicy } from '../context/context-policy.ts';
import type { Hooks, ToolErrorPolicy } from '../options.ts';
import type { OutputMode } from '../output/structured-output.ts';
import type { ResolvedSchema } from '../tools/schema.ts';
import type { AnyTool } from '../tools/tool.ts';
import type { RunCheckpoint } from './checkpoint.ts';
import type { StepResult } from './result.ts';
import type { Resolution } from './run-tool.ts';

export interface RunConfig {
  model: LanguageModel;
  threadId: string;
  messages: Message[];
  /** The request without messages (system, tool definitions, sampling settings, extras). */
  base: Omit<ModelRequest, 'model' | 'messages'>;
  tools: ReadonlyMap<string, AnyTool>;
  /** Re-reads the tools before every model call (tool sources whose list may change); replaces `tools`. */
  loadTools?: (warn?: (message: string) => void) => Promise<ReadonlyMap<string, AnyTool>>;
  /** The input thread's metadata, kept on the thread the run reports. */
  threadMetadata?: Record<string, unknown>;
  /** The run changed `threadMetadata` (it records its trace context): `chat-finish` carries it as `metadata`. */
  metadataChanged?: boolean;
  hooks: Hooks;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  maxSteps: number;
  maxRetries: number;
  toolTimeoutMs: number;
  onToolError: ToolErrorPolicy;
  haltWhen?: (step: StepResult) => boolean;
  output?: { schema: ResolvedSchema; mode: OutputMode };
  resume: ReadonlyMap<string, Resolution>;
  /** What a stopped run recorded: this run goes on from there (checkpoint.ts). */
  checkpoint?: RunCheckpoint;
  generateId: () => string;
  /** Fits each request to the model's context window (context/context-policy.ts). */
  context?: ContextPolicy;
  /**
   * Resolves once the reader took every event so far and asks for more (event-queue.ts): tool calls
   * start after it, so their calls are recorded wherever the reader records events before they begin.
   */
  taken?: () => Promise<void>;
  /** Bytes of events the run holds for its reader before it stops reading the model (default 256 KiB). */
  maxQueuedBytes?: number;
}
