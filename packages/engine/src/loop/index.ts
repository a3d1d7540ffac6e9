export { collect, addToCollect, createCollectState, toChatResult, type ChatResult, type CollectState, type PendingCall, type PendingKind, type StepResult } from './result.ts';
export { unresolvedCalls, withMissingResults } from './pending.ts';
