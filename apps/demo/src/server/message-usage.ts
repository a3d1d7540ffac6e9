/**
 * Usage and cost per message. The protocol reports usage per response (`finish`)
 * and per run (`chat-finish`); this wraps a runner so each assistant message also
 * carries its own response's usage in `metadata.usage` (a `message-metadata` event
 * right after the response's `finish`), which the UI shows under the message and
 * which is saved with the thread the browser folds from the events.
 */
import type { Event } from '@parlance/protocol';
import type { ChatRunner } from '@parlance/server';

export function withMessageUsage(run: ChatRunner): ChatRunner {
  const wrapped: ChatRunner = async function* (input) {
    let current: string | undefined;
    for await (const raw of run(input)) {
      let event: Event = raw;
      if (event.type === 'message-start') {
        // Name the message here (the server would otherwise), so its usage can be addressed.
        if (!event.messageId) event = { ...event, messageId: input.generateId('msg') };
        current = event.messageId;
      }
      yield event;
      if (event.type === 'finish' && current && Object.keys(event.usage).length) {
        yield { type: 'message-metadata', messageId: current, metadata: { usage: event.usage } };
      }
    }
  };
  // The server reads the runner's profile (its tools, its credentials) through the wrapper.
  if (run.profile) wrapped.profile = run.profile;
  return wrapped;
}
