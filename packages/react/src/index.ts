export { ChatProvider, useChatStore } from './context.ts';
export { useChat, type UseChatOptions } from './use-chat.ts';
export { useMessage, useMessagePart, useThreadMessageIds } from './use-message.ts';
export { useStream } from './use-stream.ts';
