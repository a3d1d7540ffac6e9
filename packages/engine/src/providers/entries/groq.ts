// `@parlance/engine/providers/groq`: the groq provider alone, with only its dialect and catalog table.
export { groq } from '../builtin/chat-completions-vendors.ts';
