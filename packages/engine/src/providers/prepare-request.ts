/**
 * What the engine checks and adjusts before a request leaves, using the catalog:
 * images sent to a text-only model fail here (a typed error, no request made), an
 * effort level the model does not accept is moved to the nearest one it does, and
 * a token limit above the model's maximum is lowered to it, and sampling settings the
 * model rejects (`ModelInfo.sampling`) are left out with a warning. Images a tool returned
 * (a content output, e.g. an MCP screenshot) to a text-only model are named in a note instead,
 * with a warning: a user's image the model cannot see is the user's mistake, a tool's is not,
 * and must not fail every later step of the run. Unknown models pass through untouched: the
 * catalog only ever prevents errors it is sure of.
 */
import { ParlanceError, acceptsFile, fileModality, toolContentOf, type ModelRequest, type Part, type ReasoningEffort, type ToolContentPart } from '@parlance/protocol';
import type { ModelInfo } from '../catalog/catalog.ts';

type Request = Omit<ModelRequest, 'model'>;

const EFFORT_ORDER: ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh'];

/** The accepted level closest to the one asked for; between two equally close, the higher. */
export function clampEffort(effort: ReasoningEffort, accepted: readonly ReasoningEffort[]): ReasoningEffort {
  if (accepted.length === 0 || accepted.includes(effort)) return effort;
  const at = EFFORT_ORDER.indexOf(effort);
  let best = accepted[0]!;
  let bestDistance = Infinity;
  for (const level of accepted) {
    const index = EFFORT_ORDER.indexOf(level);
    const distance = Math.abs(index - at);
    if (distance < bestDistance || (distance === bestDistance && index > EFFORT_ORDER.indexOf(best))) {
      best = level;
      bestDistance = distance;
    }
  }
  return best;
}

/** Throws `invalid_request` (with the part's path) when the request holds a file the model cannot take (an image or a PDF for a text-only model; see `acceptsFile`). */
export function checkInput(request: Request, info: ModelInfo): void {
  if (info.input.includes('image')) return;
  request.messages.forEach((message, m) => {
    message.parts.forEach((part, p) => {
      if (part.type === 'file' && !acceptsFile(info.input, part.mediaType)) {
        throw new ParlanceError(
          'invalid_request',
          `${info.provider}:${info.id} does not accept ${fileModality(part.mediaType)} input (message ${m}, part ${p} is ${part.mediaType})`,
          { path: ['messages', m, 'parts', p], retryable: false },
        );
      }
    });
  });
}

export interface AdjustOptions {
  requiresMaxOutputTokens?: boolean | undefined;
  /** Called for each setting left out because the model rejects it (the engine emits a `warning` event). */
  onWarning?: (warning: { setting: string; message: string }) => void;
}

/** Leaves out the sampling settings the catalog says the model rejects (`ModelInfo.sampling`), one warning each. */
function applySamplingRules(request: Request, info: ModelInfo, warn: (setting: string, message: string) => void): Request {
  const rules = info.sampling;
  if (!rules || (request.temperature === undefined && request.topP === undefined)) return request;
  const name = `${info.provider}:${info.id}`;
  const thinking = request.thinking;
  const reasoning = thinking === undefined ? rules.reasonsByDefault !== false : thinking !== false;
  if (rules.noSamplingWhileReasoning && reasoning) {
    const { temperature, topP, ...rest } = request;
    if (temperature !== undefined) warn('temperature', `${name} does not take temperature while it reasons: temperature was not sent`);
    if (topP !== undefined) warn('topP', `${name} does not take top_p while it reasons: top_p was not sent`);
    return rest;
  }
  if (rules.temperatureOrTopP && request.temperature !== undefined && request.topP !== undefined) {
    const { topP: _dropped, ...rest } = request;
    warn('topP', `${name} takes temperature or top_p, not both: top_p was not sent (temperature was)`);
    return rest;
  }
  return request;
}

const isImage = (piece: ToolContentPart): boolean => piece.type === 'file' && piece.mediaType.toLowerCase().startsWith('image/');

/** Images in tool outputs, for a model that takes none: a note in their place, one warning for them all. */
function toolImagesAsNotes(request: Request, info: ModelInfo, warn: (setting: string, message: string) => void): Request {
  if (info.input.includes('image')) return request;
  const name = `${info.provider}:${info.id}`;
  let left = 0;
  const part = (p: Part): Part => {
    const content = p.type === 'tool-result' ? toolContentOf(p.output) : undefined;
    if (p.type !== 'tool-result' || !content?.content.some(isImage)) return p;
    const pieces = content.content.map((piece): ToolContentPart => {
      if (piece.type !== 'file' || !isImage(piece)) return piece;
      left++;
      return { type: 'text', text: `[file ${piece.filename ?? piece.mediaType}: not shown, ${name} does not take images]` };
    });
    return { ...p, output: { type: 'content', content: pieces } };
  };
  const messages = request.messages.map((message) => {
    const parts = message.parts.map(part);
    return parts.some((p, i) => p !== message.parts[i]) ? { ...message, parts } : message;
  });
  if (left === 0) return request;
  warn('input', `${name} does not take images: ${left} image(s) from tool results were left out (each named in its result)`);
  return { ...request, messages };
}

export function adjustRequest(request: Request, info: ModelInfo, options: AdjustOptions = {}): Request {
  const warn = (setting: string, message: string) => options.onWarning?.({ setting, message });
  let out = toolImagesAsNotes(request, info, warn);
  const thinking = request.thinking;
  if (thinking !== undefined && info.known && info.reasoning !== undefined) {
    if (!info.reasoning || (thinking === false && info.canDisableThinking === false)) {
      // A model that cannot reason rejects reasoning parameters; one that cannot stop
      // reasoning rejects "off". Leaving the setting out is the only request that works.
      const { thinking: _dropped, ...rest } = out;
      out = rest;
    } else if (thinking && thinking.effort && info.efforts) {
      const effort = clampEffort(thinking.effort, info.efforts);
      if (effort !== thinking.effort) out = { ...out, thinking: { ...thinking, effort } };
    }
  }
  out = applySamplingRules(out, info, warn);
  if (out.maxOutputTokens !== undefined && info.known && out.maxOutputTokens > info.maxOutputTokens) {
    out = { ...out, maxOutputTokens: info.maxOutputTokens };
  } else if (out.maxOutputTokens === undefined && options.requiresMaxOutputTokens) {
    out = { ...out, maxOutputTokens: info.maxOutputTokens };
  }
  return out;
}
