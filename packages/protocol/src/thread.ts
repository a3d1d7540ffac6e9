/**
 * Threads: a conversation as plain JSON. `serializeThread` / `parseThread` round
 * trip losslessly (providerState and inactive branches included); older versions
 * migrate on parse; an invalid message is a typed error naming its path, or, with
 * `parseThreadLenient`, is quarantined so one bad record never costs the rest of the thread.
 */
import { ParlanceError } from './error.ts';
import type { Message } from './message.ts';
import { messageSchema, threadHeaderSchema } from './schema.ts';
import { THREAD_VERSION, type Thread, type ThreadBranch } from './thread-shape.ts';

/**
 * A stored message that failed validation, kept aside with the reason (see `parseThreadLenient`).
 *
 * @example
 * for (const q of quarantined) console.warn(q.reason, q.raw);
 */
export interface QuarantinedMessage {
  /** The message's position on the active path, or -1 for one stored in an inactive branch. */
  index: number;
  path: (string | number)[];
  reason: string;
  raw: unknown;
}

/**
 * A new, empty (or seeded) thread in the current format.
 *
 * @example
 * const thread = createThread('t1', [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]);
 */
export function createThread(id: string, messages: Message[] = [], metadata?: Record<string, unknown>): Thread {
  const thread: Thread = { version: THREAD_VERSION, id, messages };
  if (metadata !== undefined) thread.metadata = metadata;
  return thread;
}

/**
 * The messages a run starts from. An assistant message with nothing in it (a request that
 * failed before the model said anything) is left out, so retrying does not grow the thread;
 * a failed turn (its `error` set) stays, so the next message is not merged into it, unless it
 * is the last message (sending that thread again retries it). The engine starts every run
 * from these and the client folds a run's events onto the same list, so both end with the
 * same thread without the server sending it back. The same array when nothing is left out.
 *
 * @example
 * let fold = createFoldState(runMessages(thread.messages));
 * for await (const event of events) fold = reduceEvents(fold, event);
 */
export function runMessages(messages: Message[]): Message[] {
  const last = messages.length - 1;
  const keep = (m: Message, i: number) => m.role !== 'assistant' || m.parts.length > 0 || m.pause !== undefined || (m.error !== undefined && i < last);
  return messages.every(keep) ? messages : messages.filter(keep);
}

/**
 * The thread as JSON, ready to store.
 *
 * @example
 * localStorage.setItem('thread:t1', serializeThread(thread));
 */
export function serializeThread(thread: Thread): string {
  return JSON.stringify(thread);
}

type Issue = { path: PropertyKey[]; message: string };

function describe(issue: Issue, prefix: (string | number)[]): { path: (string | number)[]; reason: string } {
  const path = [...prefix, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  return { path, reason: issue.message };
}

function invalid(path: (string | number)[], reason: string, cause?: unknown): ParlanceError {
  const where = path.length ? path.join('.') : '(root)';
  return new ParlanceError('invalid_request', `Invalid thread at ${where}: ${reason}`, { path, cause, retryable: false });
}

/**
 * Version 0 was the pre-release shape: no `version` field, and messages carried
 * `content` (a string or a parts array) instead of `parts`. Version 1 was linear:
 * it is a version 2 tree with no other versions, so only the number changes.
 */
function migrate(raw: Record<string, unknown>): Record<string, unknown> {
  if (raw.version === 1) return { ...raw, version: THREAD_VERSION };
  if (raw.version === undefined || raw.version === 0) {
    const messages = Array.isArray(raw.messages)
      ? raw.messages.map((m) => {
          if (typeof m !== 'object' || m === null || 'parts' in m) return m;
          const { content, ...rest } = m as Record<string, unknown>;
          const parts = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
          return { ...rest, parts };
        })
      : raw.messages;
    return { ...raw, version: THREAD_VERSION, messages };
  }
  return raw;
}

function parseRoot(input: string | unknown): Record<string, unknown> {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw invalid([], `not JSON (${cause instanceof Error ? cause.message : String(cause)})`, cause);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid([], 'expected an object');
  const version = (value as Record<string, unknown>).version;
  if (version !== undefined && (typeof version !== 'number' || !Number.isInteger(version) || version < 0)) {
    throw invalid(['version'], 'expected a non-negative integer version');
  }
  const migrated = migrate(value as Record<string, unknown>);
  if (typeof migrated.version === 'number' && migrated.version > THREAD_VERSION) {
    throw invalid(['version'], `version ${migrated.version} is newer than this library reads (${THREAD_VERSION})`);
  }
  const header = threadHeaderSchema.safeParse(migrated);
  if (!header.success) {
    const first = describe(header.error.issues[0] as Issue, []);
    throw invalid(first.path, first.reason, header.error);
  }
  return migrated;
}

function build(root: Record<string, unknown>, messages: Message[], branches: [string, ThreadBranch][]): Thread {
  const thread = createThread(root.id as string, messages, root.metadata as Record<string, unknown> | undefined);
  // fromEntries defines own keys, so an id such as "__proto__" stays data.
  if (branches.length) thread.branches = Object.fromEntries(branches);
  return thread;
}

type Quarantine = (entry: QuarantinedMessage) => void;

/** Checks one message; a bad one throws (strict) or is handed to `quarantine` (lenient) and dropped. */
function checkMessage(raw: unknown, path: (string | number)[], index: number, quarantine?: Quarantine): raw is Message {
  const result = messageSchema.safeParse(raw);
  if (result.success) return true;
  const first = describe(result.error.issues[0] as Issue, path);
  if (!quarantine) throw invalid(first.path, first.reason, result.error);
  quarantine({ index, raw, ...first });
  return false;
}

/**
 * Reads `branches`: each entry `{ active, others }` with `active` in 0..others.length and every
 * other version a list of valid messages. Lenient: a bad message is quarantined (index -1), a
 * version left empty is dropped, and a malformed entry is set aside whole.
 */
function readBranches(raw: unknown, quarantine?: Quarantine): [string, ThreadBranch][] {
  if (raw === undefined) return [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    if (!quarantine) throw invalid(['branches'], 'expected an object of branches');
    quarantine({ index: -1, raw, path: ['branches'], reason: 'expected an object of branches' });
    return [];
  }
  const out: [string, ThreadBranch][] = [];
  for (const [key, entry] of Object.entries(raw)) {
    const e = entry as Partial<ThreadBranch> | null;
    const others = e?.others;
    const active = e?.active;
    const shape =
      Array.isArray(others) && Number.isInteger(active) && active! >= 0 && active! <= others.length && others.every((v) => Array.isArray(v) && v.length)
        ? undefined
        : 'expected { active, others }: others a list of non-empty versions, active from 0 to their count';
    if (shape) {
      if (!quarantine) throw invalid(['branches', key], shape);
      quarantine({ index: -1, raw: entry, path: ['branches', key], reason: shape });
      continue;
    }
    const kept: Message[][] = [];
    let at = active as number;
    others!.forEach((version: unknown[], v) => {
      const messages = version.filter((m, i): m is Message => checkMessage(m, ['branches', key, 'others', v, i], -1, quarantine));
      if (messages.length) kept.push(messages);
      else if (v < at) at--;
    });
    if (kept.length) out.push([key, { active: at, others: kept }]);
  }
  return out;
}

/**
 * Parses and validates a thread (a JSON string or a parsed value); throws a ParlanceError with the path of the first problem.
 *
 * @example
 * const thread = parseThread(localStorage.getItem('thread:t1') ?? '');
 */
export function parseThread(input: string | unknown): Thread {
  const root = parseRoot(input);
  // Keep the input itself, not the schema's copy: a copy drops keys such as "__proto__" inside opaque data.
  const messages = (root.messages as unknown[]).filter((m, i): m is Message => checkMessage(m, ['messages', i], i));
  return build(root, messages, readBranches(root.branches));
}

/**
 * Like parseThread, but a message that fails validation is set aside instead of failing the thread.
 *
 * @example
 * const { thread, quarantined } = parseThreadLenient(stored);
 * if (quarantined.length) console.warn(`${quarantined.length} message(s) could not be read`);
 */
export function parseThreadLenient(input: string | unknown): { thread: Thread; quarantined: QuarantinedMessage[] } {
  const root = parseRoot(input);
  const quarantined: QuarantinedMessage[] = [];
  const quarantine = (entry: QuarantinedMessage) => quarantined.push(entry);
  const messages = (root.messages as unknown[]).filter((m, i): m is Message => checkMessage(m, ['messages', i], i, quarantine));
  return { thread: build(root, messages, readBranches(root.branches, quarantine)), quarantined };
}
