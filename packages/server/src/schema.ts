/** The request bodies the server accepts, validated with zod before anything runs. */
import { z } from 'zod';

const json = z.unknown();

export const resumeSchema = z
  .object({
    toolResults: z.array(z.object({ toolCallId: z.string().min(1), output: json, isError: z.boolean().optional() })).optional(),
    approvals: z.array(z.object({ toolCallId: z.string().min(1), approved: z.boolean(), reason: z.string().optional() })).optional(),
    answers: z.array(z.object({ toolCallId: z.string().min(1), answer: z.string() })).optional(),
  })
  .strict();

export const chatBodySchema = z
  .object({
    thread: z.record(z.string(), json).optional(),
    messages: z.array(json).min(1).optional(),
    model: z.string().min(1).max(200).optional(),
    options: z.record(z.string(), json).optional(),
    clientRequestId: z.string().min(1).max(200),
    resume: resumeSchema.optional(),
  })
  .strict()
  .refine((body) => body.thread !== undefined || body.messages !== undefined, {
    message: 'Send a thread or messages',
    path: ['thread'],
  })
  .refine((body) => body.thread === undefined || body.messages === undefined, {
    message: 'Send a thread or messages, not both',
    path: ['messages'],
  });

export type ChatBody = z.infer<typeof chatBodySchema>;
export type Resume = z.infer<typeof resumeSchema>;

/**
 * The call options a browser may set. Everything else (tools, system prompt, extras,
 * keys) is the server's to decide; an unknown option is a 400, not silently ignored.
 */
/** The most thinking tokens a browser may ask for (the largest budget any provider accepts today is 128K). */
const MAX_THINKING_BUDGET = 128_000;

export const clientOptionsSchema = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().min(0).max(1).optional(),
    maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
    thinking: z
      .union([
        z.literal(false),
        z.object({ effort: z.enum(['minimal', 'low', 'medium', 'high', 'xhigh']).optional(), budgetTokens: z.number().int().positive().max(MAX_THINKING_BUDGET).optional() }).strict(),
      ])
      .optional(),
  })
  .strict();

export type ClientOptions = z.infer<typeof clientOptionsSchema>;
