/**
 * Token counts without a tokenizer (nothing is downloaded at run time). BPE tokenizers
 * of the major providers average about four characters of English prose per token and
 * about one token per character of CJK text; code and JSON sit in between. The estimate
 * counts ASCII at 4 characters a token and everything else at one token per character,
 * which errs on the side of too many tokens for non-Latin scripts. The context policy
 * corrects it with the usage the provider reports (see context-policy.ts).
 */
import { toolContentOf, type Message, type Part } from '@parlance/protocol';

/** Tokens of a piece of text, estimated. */
export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) ascii++;
    else if (code >= 0xdc00 && code <= 0xdfff) continue; // the second half of a surrogate pair
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/**
 * What providers bill for an image: Anthropic about (width*height)/750, at most ~1,600;
 * OpenAI 85 + 170 per 512px tile (765 for 1024x1024); Gemini 258 per image (tiles of 768).
 * Without decoding the image, the largest of these is the safe guess.
 */
const IMAGE_TOKENS = 1_600;
/** Per message: role markers and separators (OpenAI documents 3-4 per message). */
const MESSAGE_OVERHEAD = 4;

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

function fileTokens(mediaType: string, data: string | undefined): number {
  if (mediaType.startsWith('image/')) return IMAGE_TOKENS;
  // Documents and audio: the base64 payload is a poor proxy, but the only one without decoding.
  return data ? Math.ceil(data.length / 4) : IMAGE_TOKENS;
}

export function estimatePartTokens(part: Part): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'summary':
    case 'compaction':
      return estimateTextTokens(part.text);
    case 'tool-call':
      return estimateTextTokens(part.name) + estimateTextTokens(stringify(part.input)) + 8;
    case 'tool-result': {
      // A content output's files go to the model as media (the dialects send them so), counted as file parts are.
      const content = toolContentOf(part.output);
      if (!content) return estimateTextTokens(stringify(part.output)) + 8;
      let total = 8;
      for (const piece of content.content) total += piece.type === 'text' ? estimateTextTokens(piece.text) : fileTokens(piece.mediaType, piece.data);
      return total;
    }
    case 'file':
      return fileTokens(part.mediaType, part.data);
    case 'source':
      return estimateTextTokens(part.url) + (part.title ? estimateTextTokens(part.title) : 0);
    default:
      return 0;
  }
}

export function estimateMessageTokens(message: Message): number {
  let total = MESSAGE_OVERHEAD;
  for (const part of message.parts) total += estimatePartTokens(part);
  return total;
}

export function estimateMessagesTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
