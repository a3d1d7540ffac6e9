/**
 * The trust boundary around a browser-held thread. The thread lives in the browser and
 * comes back with every request, so the server signs what it must later believe, and
 * believes nothing else. Every signature is issued to one principal (the `authorize` id, or
 * none) and one thread, and covers:
 *
 * - every tool call the model made: thread id, message id and role, the part's position,
 *   call id, name and exact (canonical JSON) input;
 * - every tool result: the same, plus its output and the signature of the call it answers;
 * - every pause a run ended in: the paused message, what it waits for (kind, call, input,
 *   question) and the signatures of the message's calls.
 *
 * `verifyThread` refuses (403 `permission`, with the path of the part) any tool part that
 * is unsigned or whose signature does not cover exactly what it says, a trailing call
 * owed a result that the signed pause does not wait for, and any approval, answer or
 * result that does not match a signed pending input of its kind. `signEvents` adds the
 * signatures to a run's events as they pass (and to a thread a `chat-finish` carries), so a
 * client folding the stream holds a signed thread. Both are Web Crypto HMAC: edge-safe.
 */
import { ParlanceError, pendingInputs, type Event, type FileRef, type Message, type PendingInput, type Thread, type ToolResultPart } from '@parlance/protocol';
import { unresolvedCalls } from '../loop/pending.ts';
import type { ResumeInput } from '../options.ts';
import { createEventSigner, type EventSigner } from './event-signer.ts';
import { fileRefProblem, fileRefText, refusedFileRef, type UnsignedFileRef } from './file-refs.ts';
import { callText, pauseText, resultText, type Scope } from './signed-texts.ts';
import { signingKeys } from './signing-keys.ts';

/**
 * The signing secret (or a rotation list) of a trust boundary.
 *
 * @example
 * createThreadTrust({ secret: [process.env.PARLANCE_SECRET!, process.env.PARLANCE_SECRET_PREVIOUS!] });
 */
export interface ThreadTrustOptions {
  /**
   * The server's secret (at least 32 characters), or several: the first signs, every one
   * verifies (rotation: put the new key first, keep the old one until its threads are gone).
   */
  secret: string | readonly string[];
}

/**
 * What a thread is verified against: the principal sending it, what the request answers, and whether system messages pass.
 *
 * @example
 * await trust.verifyThread(thread, { principal: user.id, resume: body.resume });
 */
export interface VerifyThreadOptions {
  /**
   * The id of the principal sending the thread (`authorize`'s `id`). Every signature covers the
   * principal it was issued to, so a thread signed for another principal is refused like an
   * edited one. Leave it out (or pass the same value on both sides) when there are no principals.
   */
  principal?: string | undefined;
  /** What the request answers: each entry must match a signed pending input of its kind. */
  resume?: ResumeInput;
  /** Accept `system` messages from the client (default false: the system prompt is the server's). */
  allowSystemMessages?: boolean;
}

/**
 * Options of `signEvents` and `signThread`: whom the signatures are issued to.
 *
 * @example
 * trust.signEvents(thread, engine.streamChat({ thread }), { principal: user.id });
 */
export interface SignOptions {
  /** The id of the principal the run belongs to (`authorize`'s `id`); verify with the same. */
  principal?: string | undefined;
}

/**
 * Signs what a run produces and verifies what a client sends back.
 *
 * @example
 * const trust = createThreadTrust({ secret: process.env.PARLANCE_SECRET! });
 * await trust.verifyThread(thread); // rejects with a 403 ParlanceError naming the edited part
 */
export interface ThreadTrust {
  /**
   * Resolves when the thread (and the resume input) may be run; rejects with a ParlanceError
   * (`permission`, status 403) whose `path` names the refused part, e.g. `['messages', 3, 'parts', 1]`
   * or `['resume', 'approvals', 0]`.
   */
  verifyThread(thread: Thread, options?: VerifyThreadOptions): Promise<void>;
  /** The run's events with signatures added to tool calls, tool results, pauses and the final thread. */
  signEvents(thread: Thread, events: AsyncIterable<Event>, options?: SignOptions): AsyncIterable<Event>;
  /** What `signEvents` does, one event at a time and synchronously for an event that needs no signature (a server's own stage calls it). */
  eventSigner(thread: Thread, options?: SignOptions): EventSigner;
  /** A copy of a thread the host itself built (seeded history, a migration) with every tool part and pause signed, in every version of a branched thread. */
  signThread(thread: Thread, options?: SignOptions): Promise<Thread>;
  /**
   * Signs a stored file's reference for its principal (what `POST /files` answers). `verifyThread`
   * refuses a file part whose reference is unsigned, edited or issued to another principal.
   */
  signFile(ref: UnsignedFileRef, options?: SignOptions): Promise<FileRef>;
}

type Path = (string | number)[];

function refuse(path: Path, message: string): ParlanceError {
  return new ParlanceError('permission', message, { status: 403, path, retryable: false });
}

/** Which resume list answers which kind of pending input. */
const RESUME_KINDS = { toolResults: 'client-tool', approvals: 'approval', answers: 'ask-user' } as const;

/**
 * Builds the signer and verifier for one secret (or a rotation list).
 *
 * @example
 * ```ts
 * import { createEngine, createThreadTrust } from '@parlance/engine';
 * const trust = createThreadTrust({ secret: process.env.PARLANCE_SECRET! });
 * // A paused session resumed outside the server is checked the same way:
 * await trust.verifyThread(thread, { resume: { approvals: [{ toolCallId, approved: true }] } });
 * for await (const event of trust.signEvents(thread, engine.streamChat({ thread, resume }))) send(event);
 * ```
 */
export function createThreadTrust(options: ThreadTrustOptions): ThreadTrust {
  const keys = signingKeys(options.secret);

  /**
   * A signature of the text `build` writes, or undefined when the value holds something JSON cannot
   * (Infinity from a model's `1e999`, -0, a lone surrogate): such a part is left unsigned, so it can
   * never be resumed or answered (it reaches the browser as JSON, i.e. changed), and the run goes on.
   */
  async function signText(build: () => string): Promise<string | undefined> {
    let text: string;
    try {
      text = build();
    } catch {
      return undefined;
    }
    return keys.sign(text);
  }

  async function verifyThread(thread: Thread, verify: VerifyThreadOptions = {}): Promise<void> {
    const { messages } = thread;
    const scope: Scope = { principal: verify.principal ?? null, threadId: thread.id };
    const checks: { path: Path; what: string; text: string; signature: string }[] = [];
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role === 'system' && !verify.allowSystemMessages) {
        throw refuse(['messages', i, 'role'], 'System messages are the server\'s: a client may not send one');
      }
      for (let j = 0; j < message.parts.length; j++) {
        const part = message.parts[j]!;
        if (part.type === 'file' && part.ref !== undefined) {
          const path = ['messages', i, 'parts', j];
          const { ref } = part;
          const problem = fileRefProblem(part);
          if (problem) throw refusedFileRef(path, ref, `cannot be this server's: ${problem}`);
          if (ref.signature.startsWith('p1.')) throw refusedFileRef(path, ref, 'was signed by an older version of this server: upload it again');
          checks.push({ path, what: `The file "${ref.id}"`, text: fileRefText(scope.principal, ref), signature: ref.signature });
          continue;
        }
        if (part.type !== 'tool-call' && part.type !== 'tool-result') continue;
        const path = ['messages', i, 'parts', j];
        const what = part.type === 'tool-call' ? `The tool call "${part.id}"` : `The tool result for "${part.toolCallId}"`;
        if (typeof part.signature !== 'string' || part.signature === '') throw refuse(path, `${what} is not signed by this server`);
        if (part.signature.startsWith('p1.')) throw refuse(path, `${what} was signed by an older version of this server (before signatures named their principal): ask again`);
        let text: string;
        try {
          text = part.type === 'tool-call' ? callText(scope, message, j, part) : resultText(scope, messages, i, j, part);
        } catch {
          // A value the server never signs (Infinity, -0, a lone surrogate): edited on the way.
          throw refuse(path, `${what} holds a value that is not JSON, so it was not signed by this server`);
        }
        checks.push({ path, what, text, signature: part.signature });
      }
    }
    // All at once (Web Crypto runs off the main thread); the first failure in thread order is reported.
    const valid = await Promise.all(checks.map((c) => keys.verify(c.text, c.signature)));
    const bad = valid.indexOf(false);
    if (bad >= 0) {
      const { path, what } = checks[bad]!;
      const file = what.startsWith('The file');
      throw refuse(path, file ? `${what} is not a file this server stored for you (unsigned, edited or uploaded by another principal)` : `${what} does not match its signature (edited, moved, from another thread or signed for another principal)`);
    }

    // What the run would act on: the trailing assistant message's calls still owed a result.
    let last = messages.length - 1;
    while (last >= 0 && messages[last]!.role === 'tool') last--;
    const paused = messages[last];
    // A turn that failed without pausing (its server stopped mid-call, say) is not acted on: its calls
    // are sent to the model with a "not completed" result and never run, so the thread may go on past it.
    const failed = paused?.role === 'assistant' && paused.error !== undefined && !paused.pause;
    const owed = failed ? [] : unresolvedCalls(messages);
    const resume = verify.resume ?? {};
    const answering = (resume.toolResults?.length ?? 0) + (resume.approvals?.length ?? 0) + (resume.answers?.length ?? 0) > 0;
    if (owed.length === 0 && !answering) return;
    let pending: PendingInput[] = [];
    if (paused?.role === 'assistant' && paused.pause) {
      const { pause } = paused;
      let text: string | undefined;
      try {
        text = pauseText(scope, paused, pause.waitingFor);
      } catch {
        text = undefined;
      }
      if (typeof pause.signature !== 'string' || text === undefined || !(await keys.verify(text, pause.signature))) {
        throw refuse(['messages', last, 'pause'], 'The run\'s pause is not signed by this server, or was edited');
      }
      pending = pendingInputs(messages);
    }
    const waiting = new Map(pending.map((p) => [p.toolCallId, p]));
    for (const call of owed) {
      if (waiting.has(call.id)) continue;
      const j = paused!.parts.indexOf(call);
      throw refuse(['messages', last, 'parts', j], `The tool call "${call.id}" has no result and the run is not waiting for it`);
    }
    const answered = new Set<string>();
    for (const list of ['toolResults', 'approvals', 'answers'] as const) {
      const entries = resume[list] ?? [];
      for (let k = 0; k < entries.length; k++) {
        const { toolCallId } = entries[k]!;
        const input = waiting.get(toolCallId);
        const path = ['resume', list, k];
        if (!input) throw refuse(path, `The run is not waiting for "${toolCallId}"`);
        if (input.kind !== RESUME_KINDS[list]) throw refuse(path, `"${toolCallId}" waits for ${input.kind === 'approval' ? 'an approval' : input.kind === 'ask-user' ? 'an answer' : 'a client tool result'}`);
        if (answered.has(toolCallId)) throw refuse(path, `"${toolCallId}" is answered twice`);
        answered.add(toolCallId);
      }
    }
  }

  async function* signStream(thread: Thread, events: AsyncIterable<Event>, options: SignOptions = {}): AsyncGenerator<Event> {
    const signer = eventSigner(thread, options);
    const out: Event[] = [];
    for await (const event of events) {
      const signing = signer.push(event, out);
      if (signing) await signing;
      for (const signed of out) yield signed;
      out.length = 0;
    }
  }

  function eventSigner(thread: Thread, options: SignOptions = {}): EventSigner {
    return createEventSigner({ principal: options.principal ?? null, threadId: thread.id }, thread, signText);
  }

  /** Signs one linear list of messages (the active path, or one inactive version of a branched thread). */
  async function signMessages(scope: Scope, path: readonly Message[]): Promise<Message[]> {
    const messages = path.map((m) => ({ ...m, parts: m.parts.slice() }));
    // Calls first, then results (a result covers its call's signature), then pauses (they cover the calls').
    const sign = async (type: 'tool-call' | 'tool-result') => {
      const work: Promise<void>[] = [];
      for (let i = 0; i < messages.length; i++) {
        const message = messages[i]!;
        for (let j = 0; j < message.parts.length; j++) {
          const part = message.parts[j]!;
          if (part.type !== type) continue;
          const text = () => (part.type === 'tool-call' ? callText(scope, message, j, part) : resultText(scope, messages, i, j, part as ToolResultPart));
          work.push(
            signText(text).then((signature) => {
              if (signature) message.parts[j] = { ...part, signature };
            }),
          );
        }
      }
      await Promise.all(work);
    };
    await sign('tool-call');
    await sign('tool-result');
    await Promise.all(
      messages.map(async (message, i) => {
        if (!message.pause) return;
        const signature = await signText(() => pauseText(scope, message, message.pause!.waitingFor));
        if (signature) messages[i] = { ...message, pause: { ...message.pause, signature } };
      }),
    );
    return messages;
  }

  /**
   * Every version is signed, not only the active path: a version switched back in sits where it
   * was written (its messages' ids, roles and part positions unchanged), so it verifies as it is.
   */
  async function signThread(thread: Thread, options: SignOptions = {}): Promise<Thread> {
    const scope: Scope = { principal: options.principal ?? null, threadId: thread.id };
    const messages = await signMessages(scope, thread.messages);
    if (!thread.branches) return { ...thread, messages };
    const entries = Object.entries(thread.branches).map(async ([key, branch]) => {
      const others = await Promise.all(branch.others.map((version) => signMessages(scope, version)));
      return [key, { ...branch, others }] as const;
    });
    return { ...thread, messages, branches: Object.fromEntries(await Promise.all(entries)) };
  }

  async function signFile(ref: UnsignedFileRef, options: SignOptions = {}): Promise<FileRef> {
    const fields: UnsignedFileRef = { id: ref.id, mediaType: ref.mediaType, size: ref.size, sha256: ref.sha256 };
    return { ...fields, signature: await keys.sign(fileRefText(options.principal ?? null, fields)) };
  }

  return { verifyThread, signEvents: signStream, eventSigner, signThread, signFile };
}
