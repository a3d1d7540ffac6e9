/**
 * Usage and cost per message. The protocol reports usage per response (`finish`)
 * and per run (`chat-finish`); the thread a run ends with is what the browser keeps.
 * This wraps a runner so each assistant message in that thread carries its own
 * response's usage in `metadata.usage`, which the UI shows under the message and
 * which is saved with the thread.
 */
import type { Event, Usage } from '@parlance/protocol';
import type { ChatRunner } from '@parlance/server';

export function withMessageUsage(run: ChatRunner): ChatRunner {
  const wrapped: ChatRunner = async function* (input) {
    const usage = new Map<string, Usage>();
    let current: string | undefined;
    for await (const raw of run(input)) {
      let event: Event = raw;
      if (event.type === 'message-start') {
        // Name the message here (the server would otherwise), so its usage can be found again.
        if (!event.messageId) event = { ...event, messageId: input.generateId('msg') };
        current = event.messageId;
      } else if (event.type === 'finish' && current) {
        usage.set(current, event.usage);
      } else if (event.type === 'chat-finish' && event.thread && usage.size) {
        const messages = event.thread.messages.map((m) => {
          const u = usage.get(m.id);
          return u && Object.keys(u).length ? { ...m, metadata: { ...m.metadata, usage: u } } : m;
        });
        event = { ...event, thread: { ...event.thread, messages } };
      }
      yield event;
    }
  };
  // The server reads the runner's profile (its tools, its credentials) through the wrapper.
  if (run.profile) wrapped.profile = run.profile;
  return wrapped;
}
