/**
 * Anthropic and Gemini reject a conversation whose first turn is the model's ("messages: first
 * message must use the user role"; Vertex: "First content should be with role 'user', got
 * model"). A thread can start that way: an app's welcome message, or a first user message that
 * was only whitespace (Anthropic drops it). Those dialects put this user turn first; the model's
 * own turn is kept, so nothing the user saw is lost.
 *
 * @example
 * // [assistant "Hi! How can I help?", user "Weather?"] -> [user LEADING_USER_TEXT, assistant …, user …]
 */
export const LEADING_USER_TEXT = '(The conversation begins with the assistant.)';
