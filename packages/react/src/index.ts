export { ChatProvider, useChatStore } from './context.ts';
export { useChat, type UseChatOptions, type UseChatResult } from './use-chat.ts';
export { useMessage, useMessagePart, useThreadMessageIds } from './use-message.ts';
export { useStream, type UseStreamResult } from './use-stream.ts';
