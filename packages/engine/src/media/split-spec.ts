/**
 * 'provider:model' strings for the non-chat model kinds (embedding, speech,
 * transcription, moderation), read the way `resolveModel` reads chat model strings.
 */
import { ParlanceError } from '@parlance/protocol';
import { assertKind, getMediaModelInfo, type MediaKind } from '../catalog/media-models.ts';

export function splitSpec(spec: string, kind: MediaKind, providers: readonly string[]): { provider: string; modelId: string } {
  const at = spec.indexOf(':');
  const raw = at > 0 ? spec.slice(0, at) : '';
  const provider = raw === 'gemini' ? 'google' : raw;
  const modelId = spec.slice(at + 1);
  if (!providers.includes(provider) || modelId === '') {
    throw new ParlanceError('invalid_request', `Unknown ${kind} model "${spec}": use ${providers.map((p) => `"${p}:<model>"`).join(', ')}`, { retryable: false });
  }
  assertKind(getMediaModelInfo(provider, modelId), kind, (message) => new ParlanceError('invalid_request', message, { retryable: false }));
  return { provider, modelId };
}
