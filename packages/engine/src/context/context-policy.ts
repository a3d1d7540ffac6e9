/**
 * What the engine does when a thread outgrows the model's context window. Before each
 * model call the request is estimated (estimate-tokens.ts, corrected by the usage the
 * provider reported for the previous call of the run) against the window the catalog
 * gives (or `contextWindow`), less what is kept free for the answer; when it does not
 * fit, the configured strategy runs:
 * - 'drop-oldest': whole turns go, oldest first (a turn starts at a user message, so a
 *   tool call never loses its result and no message is cut: reasoning signatures,
 *   encrypted reasoning and item ids travel untouched); then, inside the last turn, the
 *   oldest assistant/tool exchanges after its user message.
 * - 'summarize': a model call summarizes the oldest turns; the summary becomes a
 *   `summary` part in a user message of the thread (the `summary` event), and requests
 *   send it, first after the system messages, in place of the turns it covers (see
 *   applySummaries). User role: the summary is the conversation's content, and a thread
 *   comes back from the browser, which may never write the system prompt.
 * - 'fail': a `context_length_exceeded` error before anything is sent.
 * When the provider refuses a request as too long anyway (the estimate was off), the
 * strategy runs once more, sized by the provider's own numbers where its message gives
 * them, and the call is made again; the refused attempt leaves nothing in the thread.
 * Anthropic compaction blocks (compaction parts) are kept: the API itself ignores what
 * precedes one, so only what follows is counted.
 */
import {
  type Event,
  type LanguageModel,
  type Message,
  type ModelRequest,
  ParlanceError,
  type Response,
  type SummaryPart,
  type Usage,
} from '@parlance/protocol';
import type { ModelInfo } from '../catalog/catalog.ts';
import { estimateMessagesTokens, estimateMessageTokens, estimateTextTokens } from './estimate-tokens.ts';

type Request = Omit<ModelRequest, 'model'>;

/**
 * 
 *
 * @example
 * createEngine({ context: { strategy: 'summarize' } });
 */
export type ContextStrategy = 'drop-oldest' | 'summarize' | 'fail';

/**
 * The engine's `context` option.
 *
 * @example
 * ```ts
 * const engine = createEngine({ model: 'anthropic:claude-haiku-4-5', context: { strategy: 'summarize' } });
 * ```
 */
export interface ContextOptions {
  strategy: ContextStrategy;
  /** The window in tokens (default: the catalog's for the model; a model it does not know is only fitted after the provider refuses). */
  contextWindow?: number;
  /** Tokens kept free for the answer (default: the request's `maxOutputTokens`, at most a quarter of the window). */
  reserveOutputTokens?: number;
  /** 'summarize': the model that writes summaries (default: the run's model). */
  summaryModel?: LanguageModel;
  /** 'summarize': instructions for the summary (default: a prompt that keeps facts, decisions, open tasks). */
  summaryPrompt?: string;
}

/** What fit() needs from the loop. */
export interface FitContext {
  emit: (event: Event) => void;
  signal: AbortSignal;
  /** The provider refused the previous attempt as too long (its error message). */
  refused?: string;
}

export interface ContextPolicy {
  /** Whether a refusal can be answered by running the strategy again. */
  readonly retriesRefusal: boolean;
  /** Applies the thread's summaries, then fits the request to the window. Throws `context_length_exceeded` when it cannot. */
  fit(request: Request, context: FitContext): Promise<Request>;
  /** Records what the provider reported for a request (calibrates the next estimate). */
  observe(request: Request, response: Response): void;
}

/**
 * The instructions the summarizing call gets unless `context.summaryPrompt` says otherwise.
 *
 * @example
 * ```ts
 * createEngine({ context: { strategy: 'summarize', summaryPrompt: `${DEFAULT_SUMMARY_PROMPT} Keep every order number.` } });
 * ```
 */
export const DEFAULT_SUMMARY_PROMPT =
  'You compress the earlier part of a conversation so that it can continue without it. Write a concise summary of the conversation below: ' +
  'the user\'s goals and preferences, facts and numbers established, decisions made, tool results that still matter, and open questions or tasks. ' +
  'Write it as notes for the assistant, in the language of the conversation. Do not address the user.';

const SUMMARY_HEADER = 'Summary of the earlier conversation (older messages were replaced by it):\n';

/** The context window a model's catalog data gives, when the catalog knows the model. */
function knownWindow(model: LanguageModel): number | undefined {
  const info = (model as { info?: ModelInfo }).info;
  return info?.known ? info.contextWindow : undefined;
}

function lastIndexOf<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

function isCompaction(message: Message): boolean {
  // An empty compaction is a failed one: it has no effect (see CompactionPart).
  return message.parts.some((p) => p.type === 'compaction' && p.text !== '');
}

/**
 * The messages a request sends for a thread with summaries: the latest summary (its
 * message moved to the front, after the system messages) stands for every message up to
 * the one it names, older summaries included. A summary whose message is not in the
 * thread is ignored.
 *
 * @example
 * ```ts
 * const sent = applySummaries(thread.messages); // what the engine sends for a summarized thread
 * ```
 */
export function applySummaries(messages: readonly Message[]): Message[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    const part = message.parts.find((p): p is SummaryPart => p.type === 'summary');
    if (!part) continue;
    const through = messages.findIndex((m) => m.id === part.through);
    if (through < 0 || through >= i) continue;
    const system = messages.slice(0, through + 1).filter((m) => m.role === 'system' && !m.parts.some((p) => p.type === 'summary'));
    const rest = messages.slice(through + 1).filter((m, k) => k + through + 1 !== i && !m.parts.some((p) => p.type === 'summary'));
    return [...system, message, ...rest];
  }
  return [...messages];
}

/**
 * Estimated tokens of a whole request: messages, system prompt, tool definitions (no
 * tokenizer: see estimate-tokens.ts). For Anthropic, what precedes the last compaction
 * block is not counted: the API ignores it.
 *
 * @example
 * ```ts
 * if (estimateRequestTokens({ messages }) > 100_000) console.warn('long thread');
 * ```
 */
export function estimateRequestTokens(request: Request, dialect?: string): number {
  let messages = request.messages;
  if (dialect === 'anthropic_messages') {
    // The API ignores everything before the last compaction block.
    const at = lastIndexOf(messages, isCompaction);
    if (at > 0) messages = messages.slice(at);
  }
  let total = estimateMessagesTokens(messages);
  if (request.system) total += estimateTextTokens(request.system);
  if (request.tools?.length) total += estimateTextTokens(JSON.stringify(request.tools));
  if (request.output) total += estimateTextTokens(JSON.stringify(request.output.schema));
  return total;
}

/** Units that must travel together: a user message; an assistant message with the tool messages answering it. */
interface Unit {
  start: number;
  end: number;
  user: boolean;
  tokens: number;
  pinned: boolean;
}

function unitsOf(messages: readonly Message[], from: number): Unit[] {
  const units: Unit[] = [];
  for (let i = from; i < messages.length; ) {
    const message = messages[i]!;
    let end = i + 1;
    if (message.role === 'assistant') while (end < messages.length && messages[end]!.role === 'tool') end++;
    let tokens = 0;
    let pinned = false;
    for (let k = i; k < end; k++) {
      tokens += estimateMessageTokens(messages[k]!);
      pinned ||= isCompaction(messages[k]!) || messages[k]!.role === 'system' || messages[k]!.parts.some((p) => p.type === 'summary');
    }
    units.push({ start: i, end, user: message.role === 'user', tokens, pinned });
    i = end;
  }
  return units;
}

/** Numbers in a provider's refusal: "maximum context length is 128000 tokens ... resulted in 130532 tokens", "210000 tokens > 200000 maximum". */
export function readRefusal(message: string): { used?: number; limit?: number } {
  const numbers = (pattern: RegExp) => {
    const m = pattern.exec(message.replace(/,(?=\d{3})/g, ''));
    return m ? m.slice(1).map(Number) : undefined;
  };
  const anthropic = numbers(/(\d+)\s*tokens?\s*>\s*(\d+)/i);
  if (anthropic) return { used: anthropic[0]!, limit: anthropic[1]! };
  const limit = numbers(/maximum context length is (\d+)/i) ?? numbers(/(?:limit|maximum)(?: of)? (\d+) tokens/i);
  const used = numbers(/(?:resulted in|requested|input of|contains?) (\d+) tokens/i);
  const out: { used?: number; limit?: number } = {};
  if (limit) out.limit = limit[0]!;
  if (used) out.used = used[0]!;
  return out;
}

interface Observation {
  ids: string[];
  estimate: number;
  inputTokens: number;
  outputTokens: number;
}

function tooLong(model: LanguageModel, needed: number, window: number, reserve: number): ParlanceError {
  return new ParlanceError(
    'context_length_exceeded',
    `The thread needs about ${needed} tokens; ${model.provider}:${model.modelId} takes ${window}, with ${reserve} kept for the answer`,
    { retryable: false },
  );
}

function transcript(messages: readonly Message[], maxTokens: number): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const part of message.parts) {
      let line: string | undefined;
      if (part.type === 'text') line = `${message.role}: ${part.text}`;
      else if (part.type === 'summary') line = `earlier summary: ${part.text}`;
      else if (part.type === 'tool-call') line = `${message.role} called ${part.name}(${JSON.stringify(part.input)})`;
      else if (part.type === 'tool-result') {
        const output = typeof part.output === 'string' ? part.output : JSON.stringify(part.output);
        line = `result of ${part.name}: ${output.length > 2000 ? `${output.slice(0, 2000)}…` : output}`;
      } else if (part.type === 'file') line = `${message.role} attached a file (${part.mediaType})`;
      if (line) lines.push(line);
    }
  }
  // Keep the newest lines when the transcript itself would not fit the summarizer.
  let total = 0;
  let from = lines.length;
  while (from > 0 && total + estimateTextTokens(lines[from - 1]!) <= maxTokens) total += estimateTextTokens(lines[--from]!);
  return lines.slice(from).join('\n');
}

async function summarize(model: LanguageModel, prompt: string, text: string, signal: AbortSignal): Promise<{ text: string; usage: Usage }> {
  let out = '';
  let usage: Usage = {};
  let error: { code: ParlanceError['code']; message: string } | undefined;
  const request: Request = { system: prompt, messages: [{ id: 'summary-input', role: 'user', parts: [{ type: 'text', text }] }] };
  for await (const event of model.stream(request, { signal })) {
    if (event.type === 'text-delta') out += event.delta;
    else if (event.type === 'error') error = { code: event.code, message: event.message };
    else if (event.type === 'finish') usage = event.usage;
  }
  if (error) throw new ParlanceError(error.code, `Summarizing the older messages failed: ${error.message}`);
  if (!out.trim()) throw new ParlanceError('invalid_response', 'The summary model returned no text');
  return { text: out.trim(), usage };
}

/**
 * The engine's context policy for one run. Without `options` it only applies the
 * summaries a thread already holds.
 */
export function createContextPolicy(options: ContextOptions | undefined, model: LanguageModel, generateId: () => string): ContextPolicy {
  let observed: Observation | undefined;
  /** Actual tokens per estimated token, learned from the provider's usage or refusal. */
  let ratio = 1;
  let refusedLimit: number | undefined;

  const window = () => refusedLimit ?? options?.contextWindow ?? knownWindow(model);

  /** Tokens of a request: the provider's own count of the shared prefix where there is one, else the calibrated estimate. */
  const measure = (request: Request): number => {
    const estimate = estimateRequestTokens(request, model.dialect);
    if (observed) {
      const ids = request.messages.map((m) => m.id);
      const prefix = observed.ids.length > 0 && observed.ids.every((id, i) => ids[i] === id);
      if (prefix && ids.length > observed.ids.length) {
        // Known: the previous request and the answer to it; estimated: what came after (tool results, a new question).
        const rest = request.messages.slice(observed.ids.length + 1);
        return observed.inputTokens + observed.outputTokens + Math.ceil(estimateMessagesTokens(rest) * ratio);
      }
    }
    return Math.ceil(estimate * ratio);
  };

  const reserveFor = (request: Request, limit: number) =>
    options?.reserveOutputTokens ?? Math.min(request.maxOutputTokens ?? Math.floor(limit / 4), Math.floor(limit / 4));

  /** The request with the fewest oldest units dropped that fits `budget` (estimated), or undefined. */
  const dropOldest = (request: Request, budget: number): Request | undefined => {
    const messages = request.messages;
    const lead = messages.findIndex((m) => m.role !== 'system');
    if (lead < 0) return undefined;
    const units = unitsOf(messages, lead);
    const fixed = Math.ceil((estimateRequestTokens({ ...request, messages: messages.slice(0, lead) }, model.dialect)) * ratio);
    let total = fixed + Math.ceil(units.reduce((n, u) => n + u.tokens, 0) * ratio);
    const keep = units.map(() => true);
    const lastUser = lastIndexOf(units, (u) => u.user);
    // Whole turns first: everything before the last user message, oldest first.
    for (let u = 0; u < Math.max(0, lastUser) && total > budget; u++) {
      if (units[u]!.pinned) continue;
      keep[u] = false;
      total -= Math.ceil(units[u]!.tokens * ratio);
    }
    // A kept exchange must follow its own question: drop those left before the first kept question.
    const firstUser = units.findIndex((u, i) => keep[i] && u.user && !u.pinned);
    for (let u = 0; u < firstUser; u++) {
      if (keep[u] && !units[u]!.pinned) {
        keep[u] = false;
        total -= Math.ceil(units[u]!.tokens * ratio);
      }
    }
    // Then, inside the last turn, the oldest exchanges after its user message (never the newest).
    for (let u = lastUser + 1; u < units.length - 1 && total > budget; u++) {
      if (units[u]!.pinned) continue;
      keep[u] = false;
      total -= Math.ceil(units[u]!.tokens * ratio);
    }
    if (total > budget) return undefined;
    const kept = [...messages.slice(0, lead), ...units.flatMap((u, i) => (keep[i] ? messages.slice(u.start, u.end) : []))];
    return { ...request, messages: kept };
  };

  const summarizeOldest = async (request: Request, budget: number, context: FitContext): Promise<Request | undefined> => {
    const messages = request.messages;
    const lead = messages.findIndex((m) => m.role !== 'system');
    if (lead < 0) return undefined;
    const units = unitsOf(messages, lead);
    const summaryRoom = Math.min(1_000, Math.floor(budget / 4));
    const fixed = Math.ceil(estimateRequestTokens({ ...request, messages: messages.slice(0, lead) }, model.dialect) * ratio);
    // Keep the newest turns that fit beside a summary; summarize every turn before them.
    let total = fixed + summaryRoom;
    let cut = units.length;
    for (let u = units.length - 1; u >= 0; u--) {
      const cost = Math.ceil(units[u]!.tokens * ratio);
      if (total + cost > budget && units.slice(u + 1).some((x) => x.user)) break;
      total += cost;
      cut = u;
    }
    // The kept part starts at a user message (turn boundary).
    while (cut < units.length && !units[cut]!.user) cut++;
    if (cut === 0 || cut >= units.length) return undefined;
    const older = messages.slice(lead, units[cut]!.start);
    const through = older.at(-1)!.id;
    const summarizer = options?.summaryModel ?? model;
    const input = transcript(older, Math.max(1_000, budget - summaryRoom));
    const { text, usage } = await summarize(summarizer, options?.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT, input, context.signal);
    const summary = `${SUMMARY_HEADER}${text}`;
    const event: Event = { type: 'summary', messageId: generateId(), text: summary, through };
    if (Object.keys(usage).length > 0) event.usage = usage;
    context.emit(event);
    const part: SummaryPart = { type: 'summary', text: summary, through };
    const system = messages.slice(0, lead);
    const rest = messages.slice(units[cut]!.start).filter((m) => !m.parts.some((p) => p.type === 'summary'));
    return { ...request, messages: [...system, { id: event.messageId, role: 'user', parts: [part] }, ...rest] };
  };

  return {
    retriesRefusal: options !== undefined && options.strategy !== 'fail',
    async fit(request, context) {
      const out: Request = { ...request, messages: applySummaries(request.messages) };
      if (!options) return out;
      if (context.refused !== undefined) {
        const numbers = readRefusal(context.refused);
        const estimate = estimateRequestTokens(out, model.dialect);
        if (numbers.limit) refusedLimit = numbers.limit;
        // The estimate was low: learn by how much, or assume a quarter.
        ratio = Math.max(ratio, numbers.used ? numbers.used / Math.max(1, estimate) : (ratio * 4) / 3);
        if (!refusedLimit) refusedLimit = Math.floor(Math.min(window() ?? Infinity, estimate * ratio * 0.75));
        observed = undefined;
      }
      const limit = window();
      if (limit === undefined) return out;
      const reserve = reserveFor(out, limit);
      const budget = limit - reserve;
      const needed = measure(out);
      if (needed <= budget) return out;
      if (options.strategy === 'fail') throw tooLong(model, needed, limit, reserve);
      let fitted = options.strategy === 'summarize' ? await summarizeOldest(out, budget, context) : dropOldest(out, budget);
      // A summary beside turns that still do not fit: drop the oldest of those too (the summary is pinned).
      if (fitted && options.strategy === 'summarize' && measure(fitted) > budget) fitted = dropOldest(fitted, budget);
      if (!fitted) throw tooLong(model, needed, limit, reserve);
      return fitted;
    },
    observe(request, response) {
      const input = response.usage.inputTokens;
      if (input === undefined || response.finishReason === 'error') return;
      const estimate = estimateRequestTokens(request, model.dialect);
      observed = { ids: request.messages.map((m) => m.id), estimate, inputTokens: input, outputTokens: response.usage.outputTokens ?? 0 };
      // Cached tokens are part of inputTokens (the dialects normalise to OpenAI's convention).
      if (estimate > 0) ratio = Math.min(4, Math.max(0.25, input / estimate));
    },
  };
}
