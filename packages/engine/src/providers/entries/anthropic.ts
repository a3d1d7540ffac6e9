// `@parlance/engine/providers/anthropic`: the anthropic provider alone, with only its dialect and catalog table.
export { anthropic } from '../builtin/anthropic.ts';
