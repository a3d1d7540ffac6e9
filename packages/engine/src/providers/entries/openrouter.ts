// `@parlance/engine/providers/openrouter`: the openrouter provider alone, with only its dialect and catalog table.
export { openrouter } from '../builtin/chat-completions-vendors.ts';
