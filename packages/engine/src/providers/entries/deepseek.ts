// `@parlance/engine/providers/deepseek`: the deepseek provider alone, with only its dialect and catalog table.
export { deepseek } from '../builtin/chat-completions-vendors.ts';
