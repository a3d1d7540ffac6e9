// `@parlance/engine/providers/zai`: the zai provider alone, with only its dialect and catalog table.
export { zai } from '../builtin/chat-completions-vendors.ts';
