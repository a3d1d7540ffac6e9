// `@parlance/engine/providers/mistral`: the mistral provider alone, with only its dialect and catalog table.
export { mistral } from '../builtin/chat-completions-vendors.ts';
