// `@parlance/engine/providers/openai`: the openai provider alone, with only its dialect and catalog table.
export { openai } from '../builtin/openai.ts';
