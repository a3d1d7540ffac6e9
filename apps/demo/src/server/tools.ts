/**
 * The demo's server tools. `get_weather` waits for the user's approval (the run
 * pauses with `approval-requested`; the browser answers with one POST), `get_time`
 * runs at once. Inputs are plain JSON Schema, so the demo needs no schema library.
 */
import { tool } from '@parlance/engine';

const CONDITIONS = ['sunny', 'cloudy', 'light rain', 'windy', 'foggy', 'clear'];

/** Made-up but stable weather: the same city always gets the same answer. */
export function demoWeather(city: string) {
  let hash = 0;
  for (const char of city.toLowerCase()) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return { city, temperatureC: 8 + (hash % 20), conditions: CONDITIONS[hash % CONDITIONS.length]! };
}

export const getWeather = tool({
  name: 'get_weather',
  description: 'The current weather in a city (demo data). Needs the user\'s approval.',
  input: {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name, e.g. "Paris"' } },
    required: ['city'],
    additionalProperties: false,
  },
  needsApproval: true,
  execute: (input) => demoWeather(String((input as { city: string }).city)),
});

export const getTime = tool({
  name: 'get_time',
  description: 'The current time in an IANA time zone (default UTC).',
  input: {
    type: 'object',
    properties: { timeZone: { type: 'string', description: 'IANA time zone, e.g. "Europe/Paris"' } },
    additionalProperties: false,
  },
  execute: (input) => {
    const requested = (input as { timeZone?: string }).timeZone || 'UTC';
    let timeZone = requested;
    try {
      new Intl.DateTimeFormat('en', { timeZone });
    } catch {
      timeZone = 'UTC';
    }
    const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date());
    return { timeZone, time };
  },
});

/** Asks the user a question before it can answer (`askUser`): the run pauses until the browser sends the answer. */
export const bookTable = tool({
  name: 'book_table',
  description: 'Books a table at a restaurant (demo: nothing is booked). Asks the user how many people.',
  input: {
    type: 'object',
    properties: { restaurant: { type: 'string' } },
    required: ['restaurant'],
    additionalProperties: false,
  },
  execute: async (_input, { askUser }) => askUser('For how many people?'),
});

/** A client tool: no `execute` on the server, the browser answers it (the demo shares a made-up location). */
export const getLocation = tool({
  name: 'get_location',
  description: "The user's location, from their browser (they choose whether to share it).",
  input: { type: 'object', properties: {}, additionalProperties: false },
});

export const demoTools = [getWeather, getTime, bookTable, getLocation];
