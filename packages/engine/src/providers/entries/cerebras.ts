// `@parlance/engine/providers/cerebras`: the cerebras provider alone, with only its dialect and catalog table.
export { cerebras } from '../builtin/chat-completions-vendors.ts';
