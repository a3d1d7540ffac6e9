/**
 * Threads: a conversation as plain JSON. `serializeThread` / `parseThread` round
 * trip losslessly (providerState included); older versions migrate on parse; an
 * invalid message is a typed error naming its path, or, with `parseThreadLenient`,
 * is quarantined so one bad record never costs the rest of the thread.
 */
import { ParlanceError } from './error.ts';
import type { Message } from './message.ts';
import { messageSchema, threadHeaderSchema } from './schema.ts';

/**
 * The thread format written today (`parseThread` migrates older ones).
 *
 * @example
 * if (stored.version > THREAD_VERSION) showUpgradeNotice();
 */
export const THREAD_VERSION = 1;

/**
 * A conversation: versioned, serializable, the same shape in the browser, on the server and in storage.
 *
 * @example
 * const thread: Thread = createThread('t1');
 * localStorage.setItem('t1', serializeThread(thread));
 */
export interface Thread {
  version: typeof THREAD_VERSION;
  id: string;
  messages: Message[];
  metadata?: Record<string, unknown>;
}

/**
 * A stored message that failed validation, kept aside with the reason (see `parseThreadLenient`).
 *
 * @example
 * for (const q of quarantined) console.warn(q.reason, q.raw);
 */
export interface QuarantinedMessage {
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
 * `content` (a string or a parts array) instead of `parts`.
 */
function migrate(raw: Record<string, unknown>): Record<string, unknown> {
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

function build(root: Record<string, unknown>, messages: Message[]): Thread {
  return createThread(root.id as string, messages, root.metadata as Record<string, unknown> | undefined);
}

/**
 * Parses and validates a thread (a JSON string or a parsed value); throws a ParlanceError with the path of the first problem.
 *
 * @example
 * const thread = parseThread(localStorage.getItem('thread:t1') ?? '');
 */
export function parseThread(input: string | unknown): Thread {
  const root = parseRoot(input);
  const raw = root.messages as unknown[];
  const messages: Message[] = [];
  for (let i = 0; i < raw.length; i++) {
    const result = messageSchema.safeParse(raw[i]);
    if (!result.success) {
      const first = describe(result.error.issues[0] as Issue, ['messages', i]);
      throw invalid(first.path, first.reason, result.error);
    }
    // Keep the input itself, not zod's copy: a copy drops keys such as "__proto__" inside opaque data.
    messages.push(raw[i] as Message);
  }
  return build(root, messages);
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
  const raw = root.messages as unknown[];
  const messages: Message[] = [];
  const quarantined: QuarantinedMessage[] = [];
  for (let i = 0; i < raw.length; i++) {
    const result = messageSchema.safeParse(raw[i]);
    if (result.success) messages.push(raw[i] as Message);
    else quarantined.push({ index: i, raw: raw[i], ...describe(result.error.issues[0] as Issue, ['messages', i]) });
  }
  return { thread: build(root, messages), quarantined };
}
