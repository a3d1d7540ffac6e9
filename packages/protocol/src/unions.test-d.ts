// Type tests: exhaustive switches over the Event and Part unions compile, and adding
// a member without handling it would not (the `never` assignments fail).
import { expectTypeOf, test } from 'vitest';
import type { Event, EventType } from './events.ts';
import type { Part } from './message.ts';
import { EVENT_TYPES } from './events.ts';

function describeEvent(event: Event): string {
  switch (event.type) {
    case 'message-start':
    case 'step-start':
    case 'step-finish':
    case 'step-restarted':
    case 'usage':
    case 'finish':
    case 'chat-finish':
    case 'object-delta':
    case 'run-paused':
    case 'summary':
    case 'message-metadata':
      return event.type;
    case 'text-start':
    case 'text-delta':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-delta':
    case 'reasoning-end':
    case 'tool-call-start':
    case 'tool-call-delta':
    case 'tool-call-end':
      return event.id;
    case 'tool-result':
    case 'approval-requested':
    case 'ask-user':
      return event.toolCallId;
    case 'source':
      return event.url;
    case 'file':
      return event.mediaType;
    case 'error':
      return event.code;
    case 'warning':
      return event.message;
    case 'compaction':
      return event.text;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function describePart(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'summary':
    case 'compaction':
      return part.text;
    case 'tool-call':
      return part.name;
    case 'tool-result':
      return part.toolCallId;
    case 'file':
      return part.mediaType;
    case 'source':
      return part.url;
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

test('exhaustive switches', () => {
  expectTypeOf(describeEvent).returns.toEqualTypeOf<string>();
  expectTypeOf(describePart).returns.toEqualTypeOf<string>();
  expectTypeOf<(typeof EVENT_TYPES)[number]>().toEqualTypeOf<EventType>();
  expectTypeOf<Extract<Event, { type: 'tool-call-delta' }>['delta']>().toEqualTypeOf<string>();
  // A file part holds data or a url, never neither.
  expectTypeOf<{ type: 'file'; mediaType: string }>().not.toMatchTypeOf<Part>();
});
