/**
 * Responses state: what `previous_response_id` and `item_reference` name, kept by the gateway
 * on a run store (memory or Redis; any `RunStore` that keeps the run ids it is given), as OpenAI
 * keeps responses when `store` is true (its default, and the AI SDK's `.responses()` default).
 *
 * A stored response is one run: id the response id, one `chat-finish` whose thread is the whole
 * conversation (the input, earlier turns included, then the answer), kept as long as the store
 * keeps finished runs (`RunLimits.retainMs`, and its byte budgets). Its output items get ids that
 * name it (`msg_<response id>_<n>`, `rs_...`, `fc_...`, n counting the answer's items), so an
 * `item_reference` finds its response without an index. A response is read back only for the key
 * that made it. Without a store, both forms are a 400 in OpenAI's format that names the setting.
 * https://platform.openai.com/docs/api-reference/responses/create#responses-create-previous_response_id
 * https://platform.openai.com/docs/api-reference/responses/create#responses-create-input (item reference)
 */
import { getDialect } from '@parlance/dialects';
import { collectResponse, type Event, type Message, type Part, ParlanceError } from '@parlance/protocol';
import type { RunStore } from '../run-store.ts';
import { errorResponse } from './answer.ts';
import type { GatewayPrincipal } from './keys.ts';

const DIALECT = 'openai_responses';
const ITEM_ID = /^(?:rs|msg|fc)_(resp_[0-9a-f]{32})_(\d+)$/;
/** At most this many references are resolved for one request (each is a store read). */
const MAX_REFERENCES = 256;

/** What a Responses request names from earlier responses, resolved for the decoder. */
export interface ResolvedState {
  previousMessages?: Message[];
  items?: Map<string, { role: 'assistant' | 'user'; parts: Part[] }>;
}

const requestKeyOf = (principal: GatewayPrincipal, responseId: string) => `${principal.id}:response:${responseId}`;

/** The answer's item kinds and their id prefixes (the Responses encoder's item types). */
function itemPrefix(event: Event): string | undefined {
  if (event.type === 'reasoning-start') return 'rs';
  if (event.type === 'text-start') return 'msg';
  if (event.type === 'tool-call-start' && !event.providerExecuted) return 'fc';
  return undefined;
}

const ENDS = new Set<Event['type']>(['reasoning-end', 'text-end', 'tool-call-end']);

/** The parts of an answer that are items, in the order their items were numbered. */
const itemParts = (message: Message): Part[] => message.parts.filter((part) => part.type === 'reasoning' || part.type === 'text' || (part.type === 'tool-call' && !part.providerExecuted));

/**
 * Names each output item after its response, for a caller whose responses are stored.
 *
 * @example
 * const name = itemNamer('resp_0123...'); for (const event of events) yield name(event);
 */
export function itemNamer(responseId: string): (event: Event) => Event {
  let n = 0;
  /** Block id -> item id, while the block is open (bounded by the blocks open at once). */
  const open = new Map<string, string>();
  const named = (event: Event, itemId: string): Event => {
    const state = (event as { providerState?: Record<string, unknown> }).providerState ?? {};
    const own = (state[DIALECT] ?? {}) as Record<string, unknown>;
    return { ...event, providerState: { ...state, [DIALECT]: { ...own, itemId } } } as Event;
  };
  return (event) => {
    const prefix = itemPrefix(event);
    const id = (event as { id?: string }).id;
    if (prefix && id !== undefined) {
      const itemId = `${prefix}_${responseId}_${n++}`;
      open.set(id, itemId);
      return named(event, itemId);
    }
    if (ENDS.has(event.type) && id !== undefined && open.has(id)) {
      const itemId = open.get(id)!;
      open.delete(id);
      return named(event, itemId);
    }
    return event;
  };
}

/** Whether a Responses body names stored state (so it needs a store). */
function namesState(json: unknown): { previous?: string; references: string[] } {
  // A body that is not an object (`null`) names nothing; the dialect's decoder refuses it with a 400.
  const body = (typeof json === 'object' && json !== null ? json : {}) as { previous_response_id?: unknown; input?: unknown };
  const references = Array.isArray(body.input)
    ? body.input.flatMap((item) => (typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'item_reference' && typeof (item as { id?: unknown }).id === 'string' ? [(item as { id: string }).id] : []))
    : [];
  return { ...(typeof body.previous_response_id === 'string' ? { previous: body.previous_response_id } : {}), references };
}

/** The gateway's Responses state on a run store (or the 400 that names the setting when there is none). */
export function createResponsesState(store: RunStore | undefined) {
  const responses = getDialect(DIALECT);
  const notFound = (what: string) => errorResponse(responses, 'not_found', what, 404);

  /** The stored conversation of a response, for this key only. */
  async function load(principal: GatewayPrincipal, responseId: string): Promise<Message[] | undefined> {
    if (!store) return undefined;
    const run = await store.get(responseId);
    if (!run || run.requestKey !== requestKeyOf(principal, responseId)) return undefined;
    try {
      for await (const { event } of store.follow(responseId, -1)) if (event.type === 'chat-finish') return event.thread?.messages;
    } catch (error) {
      if (ParlanceError.from(error).code === 'not_found' || ParlanceError.from(error).code === 'run_expired') return undefined;
      throw error;
    }
    return undefined;
  }

  return {
    /** Whether answers to this body are kept (a store, and the caller did not send `store: false`). */
    keeps(json: unknown): boolean {
      return store !== undefined && (json as { store?: unknown }).store !== false;
    },

    /** Loads what the body names, or answers the caller's 400/404. */
    async resolve(json: unknown, principal: GatewayPrincipal): Promise<ResolvedState | Response> {
      const { previous, references } = namesState(json);
      if (previous === undefined && references.length === 0) return {};
      if (!store) {
        const form = previous !== undefined ? 'previous_response_id' : 'item_reference';
        return errorResponse(responses, 'invalid_request', `${form} needs stored responses: this gateway has none (set \`store\`, a run store, in createGateway's options), so send the whole input`, 400);
      }
      if (references.length > MAX_REFERENCES) return errorResponse(responses, 'invalid_request', `At most ${MAX_REFERENCES} item references a request`, 400);
      const out: ResolvedState = {};
      if (previous !== undefined) {
        const messages = await load(principal, previous);
        if (!messages) return notFound(`Previous response with id '${previous}' not found.`);
        out.previousMessages = messages;
      }
      const cache = new Map<string, Message[] | undefined>();
      for (const id of references) {
        const match = ITEM_ID.exec(id);
        const responseId = match?.[1];
        if (!match || !responseId) return notFound(`Item with id '${id}' not found.`);
        if (!cache.has(responseId)) cache.set(responseId, await load(principal, responseId));
        const answer = cache.get(responseId)?.at(-1);
        const part = answer?.role === 'assistant' ? itemParts(answer)[Number(match[2])] : undefined;
        if (!part) return notFound(`Item with id '${id}' not found.`);
        (out.items ??= new Map()).set(id, { role: 'assistant', parts: [part] });
      }
      return out;
    },

    /**
     * Keeps an answer: the conversation it answered and its events folded into one message. Called
     * once the answer ended well; a store that fails is not the caller's failure (the answer was sent).
     */
    async keep(principal: GatewayPrincipal, responseId: string, input: Message[], events: Event[]): Promise<void> {
      if (!store) return;
      try {
        const response = await collectResponse(events);
        const answer: Message = { ...response.message, id: responseId, role: 'assistant' };
        const { run } = await store.create({ id: responseId, requestKey: requestKeyOf(principal, responseId), createdAt: Date.now() });
        // A store that names its own runs (Durable Objects) could not be found by the response id.
        if (run.id !== responseId) return;
        await store.append(responseId, { type: 'chat-finish', haltReason: 'completed', usage: response.usage, thread: { version: 2, id: responseId, messages: [...input, answer] } });
        await store.finish(responseId);
      } catch {
        // Not kept: a later reference to it answers 404, as for an expired response.
      }
    },
  };
}

export type ResponsesState = ReturnType<typeof createResponsesState>;
