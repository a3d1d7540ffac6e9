import type { DialectId } from '@parlance/dialects';

// Its own module (no @parlance/testing import), so the workerd tests can use it without Node's types.
/** A caller's minimal request in its own API: path and body. */
export function callerRequest(dialect: DialectId, model: string, stream: boolean, extra: Record<string, unknown> = {}): { path: string; body: Record<string, unknown> } {
  switch (dialect) {
    case 'openai_completions':
      return { path: '/v1/chat/completions', body: { model, stream, messages: [{ role: 'user', content: 'hi' }], ...extra } };
    case 'openai_responses':
      return { path: '/v1/responses', body: { model, stream, input: 'hi', ...extra } };
    case 'anthropic_messages':
      return { path: '/v1/messages', body: { model, stream, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...extra } };
    case 'google_gemini':
      return { path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra } };
    case 'ollama_chat':
      return { path: '/api/chat', body: { model, stream, messages: [{ role: 'user', content: 'hi' }], ...extra } };
  }
}
