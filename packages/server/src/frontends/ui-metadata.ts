/**
 * The protocol messages a UI message stands for, carried in its metadata in pieces. The AI SDK
 * merges each `message-metadata` chunk into the message's metadata key by key (objects deeply,
 * arrays replaced: `mergeObjects` in `ai`), so the messages travel as objects keyed by message id
 * and part position, and each chunk carries only what changed: a part once, when it is complete
 * (with its signature), a message's own fields (id, role, pause, metadata ...) when they change.
 * Every chunk is constant-size in the run's length; the whole list is never sent again.
 *
 * What the UI message's own parts already hold is left out and read back from them on the way in:
 * a text or reasoning part's text (the n-th text part is the n-th UI text part), a tool call's
 * input and a successful result's output (the UI tool part of the same call id), and their
 * signatures and provider state (the UI part's provider metadata under `parlance`). So a tool
 * output or a signature is sent once, not twice, and a POST carries it once.
 */
import type { HaltReason, Message, Part, Usage } from '@parlance/protocol';
import type { UIMessage } from 'ai';

/**
 * One protocol message as it builds up in a UI message's metadata (keyed by its id): its fields, its
 * place among the UI message's messages (`n`), and its parts keyed by position (what the UI parts
 * hold left out: text, inputs, outputs, signatures).
 *
 * @example
 * const entry: UiProtocolMessage = { n: 0, role: 'assistant', parts: { 0: { type: 'tool-call', id: 'c1', name: 'pay' } } };
 */
export interface UiProtocolMessage extends Partial<Omit<Message, 'parts'>> {
  /** The message's place among the protocol messages of its UI message (sent once, with its first piece). */
  n?: number;
  parts?: Record<string, Record<string, unknown>>;
}

/**
 * What a Parlance UI message carries in its `metadata` (under `parlance`).
 *
 * @example
 * const threadId = (message.metadata as ParlanceUiMetadata | undefined)?.parlance.threadId;
 */
export interface ParlanceUiMetadata {
  parlance: {
    /** The thread the messages belong to (the chat id). */
    threadId: string;
    /** The protocol messages this UI message stands for, keyed by message id, signed as the server sent them (see `UiProtocolMessage`). */
    messages: Record<string, UiProtocolMessage>;
    haltReason?: HaltReason;
    usage?: Usage;
  };
}

/** Where the UI part keeps what a metadata part leaves out: its content, and `providerMetadata.parlance` (signature, provider state). */
const HELD_BY_UI: Partial<Record<Part['type'], { content: string; provider: string }>> = {
  text: { content: 'text', provider: 'providerMetadata' },
  reasoning: { content: 'text', provider: 'providerMetadata' },
  'tool-call': { content: 'input', provider: 'callProviderMetadata' },
  // An error result stays whole: a denied call's UI part holds neither output nor signature.
  'tool-result': { content: 'output', provider: 'resultProviderMetadata' },
};

/** The part without what its UI part holds (read back by `metadataMessages`). */
function leanPart(part: Part): Record<string, unknown> {
  if (!HELD_BY_UI[part.type] || (part.type === 'tool-result' && part.isError)) return part as unknown as Record<string, unknown>;
  const { providerState: _state, ...rest } = part as Part & { signature?: string; redacted?: boolean };
  const lean: Record<string, unknown> = { ...rest };
  delete lean[HELD_BY_UI[part.type]!.content];
  delete lean.signature;
  delete lean.redacted;
  return lean;
}

/**
 * The pieces of the UI message's protocol messages not sent yet. `messages` are the UI message's
 * protocol messages (the fold), `closed(i, j)` says whether part j of message i is complete.
 */
export interface MetadataDelta {
  /** What changed since the last call, or undefined when nothing did. */
  next(messages: readonly Message[], closed: (message: number, part: number) => boolean): Record<string, UiProtocolMessage> | undefined;
}

/**
 * Tracks what was sent: per message id, how many parts and the JSON of each own field. `known`
 * messages (those a continued UI message already holds) count as sent. The work per call is the
 * UI message's messages (one run's turn), not the thread.
 */
export function createMetadataDelta(known: readonly Message[] = []): MetadataDelta {
  const sent = new Map<string, { parts: number; fields: Map<string, string> }>();
  const fieldsOf = (message: Message) => {
    const fields = new Map<string, string>();
    for (const [key, value] of Object.entries(message)) if (key !== 'parts' && value !== undefined) fields.set(key, JSON.stringify(value));
    return fields;
  };
  for (const message of known) sent.set(message.id, { parts: message.parts.length, fields: fieldsOf(message) });
  return {
    next(messages, closed) {
      let delta: Record<string, UiProtocolMessage> | undefined;
      messages.forEach((message, i) => {
        let seen = sent.get(message.id);
        const entry: UiProtocolMessage = {};
        if (!seen) {
          seen = { parts: 0, fields: new Map() };
          sent.set(message.id, seen);
          entry.n = sent.size - 1;
        }
        for (const [key, json] of fieldsOf(message)) {
          // The id is the entry's key.
          if (key === 'id' || seen.fields.get(key) === json) continue;
          seen.fields.set(key, json);
          (entry as Record<string, unknown>)[key] = (message as unknown as Record<string, unknown>)[key];
        }
        // Parts in order, each once it is complete: a later part never goes before an open one.
        while (seen.parts < message.parts.length && closed(i, seen.parts)) {
          (entry.parts ??= {})[seen.parts] = leanPart(message.parts[seen.parts]!);
          seen.parts++;
        }
        if (Object.keys(entry).length) (delta ??= {})[message.id] = entry;
      });
      return delta;
    },
  };
}

type AnyPart = UIMessage['parts'][number] & Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The protocol messages a UI message's metadata stands for, with the text, inputs and outputs
 * its UI parts hold put back. Undefined when the metadata holds none. What it returns is
 * untrusted like any thread a client sends: the server validates it and verifies its signatures.
 *
 * @example
 * const messages = metadataMessages(uiMessage, (uiMessage.metadata as ParlanceUiMetadata).parlance.messages);
 */
export function metadataMessages(ui: UIMessage, entries: unknown): Message[] | undefined {
  if (!isRecord(entries)) return undefined;
  const list = Object.entries(entries).filter((e): e is [string, Record<string, unknown>] => isRecord(e[1]));
  if (list.length === 0) return undefined;
  const order = (entry: Record<string, unknown>) => (typeof entry.n === 'number' ? entry.n : Infinity);
  list.sort((a, b) => order(a[1]) - order(b[1]));
  const uiParts = ui.parts as AnyPart[];
  const texts = uiParts.filter((p) => p.type === 'text');
  const reasonings = uiParts.filter((p) => p.type === 'reasoning');
  const tools = new Map(uiParts.filter((p) => typeof p.toolCallId === 'string').map((p) => [p.toolCallId as string, p]));
  return list.map(([id, entry]) => {
    const { n: _n, parts: keyed, ...fields } = entry;
    const positions = isRecord(keyed) ? Object.keys(keyed).sort((a, b) => Number(a) - Number(b)) : [];
    const parts = positions.map((at) => {
      const part = { ...(keyed as Record<string, Record<string, unknown>>)[at] };
      const held = HELD_BY_UI[part.type as Part['type']];
      if (!held || held.content in part) return part;
      const from = part.type === 'text' ? texts.shift() : part.type === 'reasoning' ? reasonings.shift() : tools.get((part.id ?? part.toolCallId) as string);
      part[held.content] = from?.[held.content] ?? (part.type === 'text' || part.type === 'reasoning' ? '' : undefined);
      const parlance = (from?.[held.provider] as { parlance?: Record<string, unknown> } | undefined)?.parlance;
      for (const key of ['providerState', 'signature', 'redacted']) if (parlance?.[key] !== undefined) part[key] = parlance[key];
      return part;
    });
    return { id, ...fields, parts } as unknown as Message;
  });
}
