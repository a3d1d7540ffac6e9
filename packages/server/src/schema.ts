/**
 * The request bodies the server accepts, validated with zod before anything runs. zod/mini, the
 * tree-shakeable build: a Worker bundle carries only the checks used here (the classic `z` object
 * would bring all of zod, every locale included).
 *
 * The types are the protocol's contract (`ChatRequestBody`, `ResumeInput`); the `satisfies`
 * clauses make a field added to or dropped from the contract a compile error here.
 */
import type { ChatRequestBody, ResumeInput } from '@parlance/protocol';
import * as z from 'zod/mini';

/** One validator per field of the contract type, no more, no fewer. */
type ShapeOf<T> = { [K in keyof Required<T>]: z.ZodMiniType };

const json = z.unknown();
const id = z.string().check(z.minLength(1));

/**
 * What continues a paused run (tool results, approvals, answers), as the server validates it.
 *
 * @example
 * const parsed = resumeSchema.safeParse(body.resume);
 */
export const resumeSchema = z.strictObject({
  toolResults: z.optional(z.array(z.object({ toolCallId: id, output: json, isError: z.optional(z.boolean()) }))),
  approvals: z.optional(z.array(z.object({ toolCallId: id, approved: z.boolean(), reason: z.optional(z.string()) }))),
  answers: z.optional(z.array(z.object({ toolCallId: id, answer: z.string() }))),
} satisfies ShapeOf<ResumeInput>) satisfies z.ZodMiniType<ResumeInput>;

/**
 * The `POST /chat` body as the server validates it (zod/mini).
 *
 * @example
 * const parsed = chatBodySchema.safeParse(await request.json());
 * if (!parsed.success) return Response.json({ issues: parsed.error.issues }, { status: 400 });
 */
export const chatBodySchema = z
  .strictObject({
    thread: z.optional(z.record(z.string(), json)),
    messages: z.optional(z.array(json).check(z.minLength(1))),
    model: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    options: z.optional(z.record(z.string(), json)),
    clientRequestId: z.string().check(z.minLength(1), z.maxLength(200)),
    resume: z.optional(resumeSchema),
  } satisfies ShapeOf<ChatRequestBody>)
  .check(
    z.refine((body) => body.thread !== undefined || body.messages !== undefined, { message: 'Send a thread or messages', path: ['thread'] }),
    z.refine((body) => body.thread === undefined || body.messages === undefined, { message: 'Send a thread or messages, not both', path: ['messages'] }),
  );

/**
 * A body that passed `chatBodySchema`: the contract's `ChatRequestBody`, with `thread` and
 * `messages` still to be checked by the thread codec (`parseThread`).
 */
export type ParsedChatBody = z.infer<typeof chatBodySchema>;

/** The most thinking tokens a browser may ask for (the largest budget any provider accepts today is 128K). */
const MAX_THINKING_BUDGET = 128_000;

/**
 * The call options a browser may set. Everything else (tools, system prompt, extras,
 * keys) is the server's to decide; an unknown option is a 400, not silently ignored.
 *
 * @example
 * createParlanceApp({ models, run, clientOptions: clientOptionsSchema });
 */
export const clientOptionsSchema = z.strictObject({
  temperature: z.optional(z.number().check(z.gte(0), z.lte(2))),
  topP: z.optional(z.number().check(z.gte(0), z.lte(1))),
  maxOutputTokens: z.optional(z.int().check(z.positive(), z.lte(1_000_000))),
  thinking: z.optional(
    z.union([
      z.literal(false),
      z.strictObject({ effort: z.optional(z.enum(['minimal', 'low', 'medium', 'high', 'xhigh'])), budgetTokens: z.optional(z.int().check(z.positive(), z.lte(MAX_THINKING_BUDGET))) }),
    ]),
  ),
});

/**
 * The call options a browser may send (temperature, topP, maxOutputTokens, thinking).
 *
 * @example
 * const options: ClientOptions = { temperature: 0.2, thinking: { effort: 'low' } };
 */
export type ClientOptions = z.infer<typeof clientOptionsSchema>;
