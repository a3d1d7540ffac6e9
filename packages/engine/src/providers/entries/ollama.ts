// `@parlance/engine/providers/ollama`: the ollama provider alone, with only its dialect and catalog table.
export { ollama } from '../builtin/ollama.ts';
