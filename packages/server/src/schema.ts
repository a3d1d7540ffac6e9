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
    messages: z.array(json).optional(),
    model: z.string().min(1).max(200).optional(),
    options: z.record(z.string(), json).optional(),
    clientRequestId: z.string().min(1).max(200),
    resume: resumeSchema.optional(),
  })
  .strict()
  .refine((body) => body.thread !== undefined || body.messages !== undefined, {
    message: 'Send a thread or messages',
    path: ['thread'],
  });

export type ChatBody = z.infer<typeof chatBodySchema>;
export type Resume = z.infer<typeof resumeSchema>;

/**
 * The call options a browser may set. Everything else (tools, system prompt, extras,
 * keys) is the server's to decide; an unknown option is a 400, not silently ignored.
 */
export const clientOptionsSchema = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().min(0).max(1).optional(),
    maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
    thinking: z
      .union([
        z.literal(false),
        z.object({ effort: z.enum(['minimal', 'low', 'medium', 'high', 'xhigh']).optional(), budgetTokens: z.number().int().positive().optional() }).strict(),
      ])
      .optional(),
  })
  .strict();

export type ClientOptions = z.infer<typeof clientOptionsSchema>;
