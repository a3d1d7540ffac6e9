/**
 * What the built-in demo model says. It reads the request the engine sent (in the
 * Anthropic Messages wire format, https://docs.anthropic.com/en/api/messages) and
 * reacts to the user's words, so a person trying the demo and a test driving it
 * both get a predictable behaviour:
 *
 *   "weather"  reasons, then calls `get_weather` (needs the user's approval)
 *   "time"     calls `get_time` (runs without approval)
 *   "dice"     calls `roll_dice`, a tool of the demo MCP server (when it is on)
 *   "long"     a long answer, streamed slowly (try Stop, or reload the page)
 *   "code"     an answer with a code block and a table (or "table")
 *   "error"    the provider fails with an HTTP error
 *   files      attached images and PDFs, described by type, size and SHA-256 (describe-files.ts)
 *   anything   a short Markdown answer with reasoning
 */
import type { RecordedRequest, ScriptedTurn } from '@parlance/testing';
import { describeFiles } from './describe-files.ts';

export interface ScriptOptions {
  /** Multiplies every delay (0 in unit tests, 1 in the app). */
  delayScale?: number;
}

/** The long answer's sentences: numbered, so a test can see a duplicated or a missing one. */
export const LONG_SENTENCES = 30;
export const longSentence = (n: number) => `Sentence ${n} of the long answer.`;

export function longAnswer(): string {
  const paragraphs: string[] = [];
  for (let start = 1; start <= LONG_SENTENCES; start += 6) {
    const sentences: string[] = [];
    for (let n = start; n < start + 6 && n <= LONG_SENTENCES; n++) sentences.push(longSentence(n));
    paragraphs.push(sentences.join(' '));
  }
  return paragraphs.join('\n\n');
}

/** Markdown that real models produce and the demo must render well: a fenced block with a long line, a table. */
export function richAnswer(): string {
  return [
    'Here is a small function:',
    '',
    '```ts',
    'function greet(name: string): string {',
    `  return \`Hello, \${name}! This line is deliberately long so that the code block has to scroll sideways on a phone: \${'-'.repeat(60)}\`;`,
    '}',
    '```',
    '',
    'And the dialects Parlance speaks:',
    '',
    '| Dialect | Provider | Streams |',
    '| --- | --- | --- |',
    '| `openai_completions` | OpenAI Chat Completions | SSE |',
    '| `openai_responses` | OpenAI Responses | SSE |',
    '| `anthropic_messages` | Anthropic Messages | SSE |',
    '| `google_gemini` | Google Gemini | SSE |',
    '| `ollama_chat` | Ollama | NDJSON |',
  ].join('\n');
}

export const ERROR_MESSAGE = 'The demo model is overloaded right now (a simulated provider error, because your message said "error").';

interface WireBlock {
  type: string;
  text?: string;
  name?: string;
  id?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}
interface WireMessage {
  role: string;
  content: string | WireBlock[];
}

const blocks = (m: WireMessage | undefined): WireBlock[] =>
  !m ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b: WireBlock) => b.text ?? '').join('');
  return '';
}

/** Rough token counts, so usage and cost look alive (the wire reports them like a real provider). */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function cityIn(text: string): string {
  const match = /weather (?:in|for|at) ([\p{L}][\p{L} .'-]*?)(?:[?!.,]|$)/iu.exec(text);
  const city = match?.[1]?.trim();
  return city ? city.replace(/\b\p{L}/gu, (c) => c.toUpperCase()) : 'Paris';
}

/** The answer after a tool ran (or was denied): the last user turn holds tool_result blocks. */
function afterTool(messages: WireMessage[], scale: number, input: number): ScriptedTurn | undefined {
  const last = messages.at(-1);
  const results = blocks(last).filter((b) => b.type === 'tool_result');
  if (last?.role !== 'user' || results.length === 0) return undefined;
  const calls = new Map(blocks(messages.at(-2)).filter((b) => b.type === 'tool_use').map((b) => [b.id, b]));
  const lines = results.map((result) => {
    const call = calls.get(result.tool_use_id);
    const output = textOf(result.content);
    if (result.is_error) {
      return /denied/i.test(output)
        ? `You denied the \`${call?.name ?? 'tool'}\` call, so I did not run it. Ask again whenever you like.`
        : `The \`${call?.name ?? 'tool'}\` tool failed: ${output}`;
    }
    let value: Record<string, unknown> = {};
    try {
      value = JSON.parse(output) as Record<string, unknown>;
    } catch {}
    if (call?.name === 'get_weather') {
      return `It is **${value.temperatureC} °C** and ${value.conditions} in ${value.city} right now (demo data, not a real forecast).`;
    }
    if (call?.name === 'get_time') return `The time in ${value.timeZone} is **${value.time}**.`;
    if (call?.name === 'book_table') return `Booked a table for **${output}** (demo: nothing was really booked).`;
    if (call?.name === 'get_location') return `You are in **${value.city ?? output}**, says your browser.`;
    if (call?.name === DICE_TOOL) {
      const rolls = Array.isArray(value.rolls) ? value.rolls.join(', ') : '?';
      return `You rolled **${rolls}** (total **${value.total}**), with \`${DICE_TOOL}\` from the demo MCP server.`;
    }
    return `The tool answered: \`${output}\``;
  });
  const text = lines.join('\n\n');
  return { text, delayMs: 40 * scale, usage: { inputTokens: input, outputTokens: tokens(text) } };
}

/** The mock model with a small window (apps/demo models.ts `demo:mock-small`), as the wire names it. */
export const SMALL_MODEL = 'mock-small';
export const SMALL_WINDOW = 1_500;

/**
 * The engine asking for a summary of older turns (its context policy, 'summarize'):
 * the mock lists which questions the transcript holds, so a reader sees what was folded.
 */
function summaryTurn(system: string, messages: WireMessage[], scale: number, input: number): ScriptedTurn | undefined {
  if (!/compress the earlier part of a conversation/i.test(system)) return undefined;
  const transcript = blocks(messages.at(-1)).map((b) => b.text ?? '').join('\n');
  // Questions an earlier summary listed carry over, so the summary of a summary still names them.
  const head = transcript.startsWith('earlier summary:') ? transcript.split(/\n(?:user|assistant): /)[0]! : '';
  const earlier = [...head.matchAll(/"[^"]*"/g)].map((q) => q[0]);
  const asked = [...earlier, ...[...transcript.matchAll(/^user: (.{1,60})/gm)].map((m) => `"${m[1]!.trim()}"`)];
  const text = asked.length
    ? `The user asked ${asked.length} question${asked.length === 1 ? '' : 's'} so far: ${asked.join(', ')}; each was answered.`
    : 'Earlier turns held no questions worth keeping.';
  return { text, delayMs: 10 * scale, usage: { inputTokens: input, outputTokens: tokens(text) } };
}

/** The demo MCP server's tool (src/mcp/dice-server.ts). */
export const DICE_TOOL = 'roll_dice';
export const DICE_OFF = 'The demo MCP server is off, so there is no dice tool (start the demo without DEMO_MCP=0).';

export function demoScript(options: ScriptOptions = {}) {
  const scale = options.delayScale ?? 1;
  return (request: RecordedRequest): ScriptedTurn => {
    const body = (request.body ?? {}) as { model?: string; system?: unknown; messages?: WireMessage[]; tools?: { name?: string }[] };
    const messages = body.messages ?? [];
    const input = tokens(JSON.stringify(messages));
    // The small-context model refuses what does not fit, the way Anthropic words it.
    const sent = tokens(JSON.stringify(body));
    if (body.model === SMALL_MODEL && sent > SMALL_WINDOW) {
      return { error: { code: 'context_length_exceeded', status: 400, message: `prompt is too long: ${sent} tokens > ${SMALL_WINDOW} maximum` } };
    }
    const summary = summaryTurn(textOf(body.system), messages, scale, input);
    if (summary) return summary;
    const continued = afterTool(messages, scale, input);
    if (continued) return continued;
    const said = blocks(messages.at(-1))
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join(' ')
      .trim();
    const lower = said.toLowerCase();
    // Attachments: described by what arrived (type, size, SHA-256 of the bytes), see describe-files.ts.
    const files = describeFiles(blocks(messages.at(-1)));
    if (files.length) {
      const text = [`I received ${files.length} file${files.length === 1 ? '' : 's'}:`, '', ...files.map((line) => `- ${line}`)].join('\n');
      return { text, delayMs: 20 * scale, usage: { inputTokens: input, outputTokens: tokens(text) } };
    }

    if (/\berror\b/.test(lower)) {
      return { error: { code: 'overloaded', message: ERROR_MESSAGE, status: 529 } };
    }
    if (lower.includes('weather')) {
      const city = cityIn(said);
      const reasoning = `The user asks about the weather in ${city}. The get_weather tool can answer; it needs the user's approval before it runs.`;
      const text = `I'll look up the weather in ${city}.`;
      return {
        reasoning,
        text,
        toolCalls: [{ name: 'get_weather', input: { city } }],
        delayMs: 40 * scale,
        usage: { inputTokens: input, outputTokens: tokens(reasoning + text) + 12 },
      };
    }
    if (/\btime\b/.test(lower)) {
      const text = 'Let me check the clock.';
      return {
        reasoning: 'A clock question: get_time runs without approval.',
        text,
        toolCalls: [{ name: 'get_time', input: { timeZone: 'UTC' } }],
        delayMs: 40 * scale,
        usage: { inputTokens: input, outputTokens: tokens(text) + 10 },
      };
    }
    if (/\bbook\b/.test(lower)) {
      const text = 'I will book it; I need one detail from you.';
      return {
        reasoning: 'A booking: book_table asks the user a question before it can run.',
        text,
        toolCalls: [{ name: 'book_table', input: { restaurant: 'Chez Nous' } }],
        delayMs: 40 * scale,
        usage: { inputTokens: input, outputTokens: tokens(text) + 10 },
      };
    }
    if (/\bwhere am i\b/.test(lower)) {
      const text = 'Let me ask your browser.';
      return {
        reasoning: 'A location question: get_location is answered by the browser, not the server.',
        text,
        toolCalls: [{ name: 'get_location', input: {} }],
        delayMs: 40 * scale,
        usage: { inputTokens: input, outputTokens: tokens(text) + 8 },
      };
    }
    if (/\b(code|table)\b/.test(lower)) {
      const text = richAnswer();
      return {
        reasoning: 'Show a code block and a table.',
        text,
        delayMs: 20 * scale,
        usage: { inputTokens: input, outputTokens: tokens(text) },
      };
    }
    if (/\b(dice|die|roll)\b/.test(lower)) {
      if (!body.tools?.some((t) => t.name === DICE_TOOL)) return { text: DICE_OFF, delayMs: 40 * scale, usage: { inputTokens: input, outputTokens: tokens(DICE_OFF) } };
      const count = Math.min(10, Number(/\b(\d+)\s*(?:dice|die)\b/.exec(lower)?.[1] ?? 1));
      const text = 'Rolling with the demo MCP server.';
      return {
        reasoning: 'A dice roll: roll_dice comes from the demo MCP server.',
        text,
        toolCalls: [{ name: DICE_TOOL, input: { count, sides: 6 } }],
        delayMs: 40 * scale,
        usage: { inputTokens: input, outputTokens: tokens(text) + 10 },
      };
    }
    if (/\blong\b/.test(lower)) {
      const text = longAnswer();
      return {
        reasoning: 'A long answer was asked for: stream it slowly.',
        text,
        delayMs: 40 * scale,
        usage: { inputTokens: input, outputTokens: tokens(text) },
      };
    }
    const reasoning = `The user wrote "${said.slice(0, 60)}". Answer briefly and show what the demo can do.`;
    const text = [
      `You said: **${said.replace(/[*_`]/g, '') || '(nothing)'}**.`,
      '',
      'I am the built-in **demo model**: no API key, no network. Try:',
      '',
      '- `weather in Paris`: a tool call that waits for your approval',
      '- `what time is it`: a tool that runs without approval',
      '- `book a table`: a tool that asks you a question first',
      '- `where am I`: a tool your browser answers',
      '- `roll 2 dice`: a tool from the demo MCP server',
      '- `long`: a long, slow answer (press Stop, or reload the page)',
      '- `code`: an answer with a code block and a table',
      '- `error`: a simulated provider error',
    ].join('\n');
    return { reasoning, text, delayMs: 45 * scale, usage: { inputTokens: input, outputTokens: tokens(reasoning + text) } };
  };
}
