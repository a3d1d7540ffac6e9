// `@parlance/engine/providers/alibaba`: the alibaba provider alone, with only its dialect and catalog table.
export { alibaba } from '../builtin/chat-completions-vendors.ts';
