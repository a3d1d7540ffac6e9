// `@parlance/engine/providers/xai`: the xai provider alone, with only its dialect and catalog table.
export { xai } from '../builtin/chat-completions-vendors.ts';
