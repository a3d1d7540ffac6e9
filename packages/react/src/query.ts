/**
 * `@parlance/react/query`: thread lists and threads through TanStack Query. A subpath of its
 * own so that `@tanstack/react-query` stays an optional peer: apps that only use `useChat`
 * never import it.
 */
export { threadKeys, useThread, useThreads, type ThreadSource } from './use-threads.ts';
