// `@parlance/engine/providers/together`: the together provider alone, with only its dialect and catalog table.
export { together } from '../builtin/chat-completions-vendors.ts';
