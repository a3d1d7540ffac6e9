/**
 * Runtime schemas for messages and threads (zod/mini keeps the browser bundle small).
 * They check what a stored or received thread must hold; the TypeScript types in
 * message.ts are the source of truth and the `satisfies` checks below keep both in step.
 */
import * as z from 'zod/mini';

const providerState = z.optional(z.record(z.string(), z.unknown()));
const json = z.unknown();

const textPart = z.object({ type: z.literal('text'), text: z.string(), providerState });
const reasoningPart = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.optional(z.string()),
  redacted: z.optional(z.boolean()),
  providerState,
});
const toolCallPart = z.object({
  type: z.literal('tool-call'),
  id: z.string(),
  name: z.string(),
  input: json,
  providerExecuted: z.optional(z.boolean()),
  providerState,
});
const toolResultPart = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string(),
  name: z.string(),
  output: json,
  isError: z.optional(z.boolean()),
  providerExecuted: z.optional(z.boolean()),
  providerState,
});
const filePart = z.union([
  z.object({
    type: z.literal('file'),
    mediaType: z.string(),
    filename: z.optional(z.string()),
    data: z.string(),
    url: z.optional(z.undefined()),
    providerState,
  }),
  z.object({
    type: z.literal('file'),
    mediaType: z.string(),
    filename: z.optional(z.string()),
    url: z.string(),
    data: z.optional(z.undefined()),
    providerState,
  }),
]);
const sourcePart = z.object({ type: z.literal('source'), url: z.string(), title: z.optional(z.string()), providerState });

export const partSchema = z.union([textPart, reasoningPart, toolCallPart, toolResultPart, filePart, sourcePart]);

export const messageSchema = z.object({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  parts: z.array(partSchema),
  createdAt: z.optional(z.string()),
  metadata: z.optional(z.record(z.string(), z.unknown())),
  provenance: z.optional(z.object({ provider: z.string(), model: z.string(), dialect: z.string() })),
});

export const threadHeaderSchema = z.object({
  version: z.number(),
  id: z.string(),
  messages: z.array(z.unknown()),
  metadata: z.optional(z.record(z.string(), z.unknown())),
});
