// `@parlance/engine/providers/moonshot`: the moonshot provider alone, with only its dialect and catalog table.
export { moonshot } from '../builtin/chat-completions-vendors.ts';
