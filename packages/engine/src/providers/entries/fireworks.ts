// `@parlance/engine/providers/fireworks`: the fireworks provider alone, with only its dialect and catalog table.
export { fireworks } from '../builtin/chat-completions-vendors.ts';
