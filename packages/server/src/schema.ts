/** The request bodies the server accepts, validated with zod before anything runs. */
import { z } from 'zod';

const json = z.unknown();

export const resumeSchema = z
  .object({
    toolResults: z.array(z.object({ toolCallId: z.string().min(1), output: json, isError: z.boolean().optional() })).optional(),
    approvals: z.array(z.object({ toolCallId: z.string().min(1), approved: z.boolean(), reason: z.string().optional() })).optional(),
    answers: z.array(z.object({ toolCallId: z.string().min(1), answer: json })).optional(),
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
