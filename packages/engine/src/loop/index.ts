export { collect, addToCollect, createCollectState, toChatResult, type ChatResult, type CollectState, type PendingCall, type StepResult } from './result.ts';
export { owedCalls, unresolvedCalls, withMissingResults } from './pending.ts';
export { INTERRUPTED_RESULT, type RunCheckpoint } from './checkpoint.ts';
