// `@parlance/engine/providers/google`: the google provider alone, with only its dialect and catalog table.
export { google } from '../builtin/google.ts';
