export { ChatProvider, useChatStore } from './context.ts';
export { useChat, type UseChatOptions } from './use-chat.ts';
export { useMessage, useMessagePart, useThreadMessageIds } from './use-message.ts';
export { useStream } from './use-stream.ts';
export { threadKeys, useThread, useThreads, type ThreadSource } from './use-threads.ts';
