// app/routes/api.chat.ts: the Parlance API as a React Router resource route (see app/routes.ts:
// route("api/chat/*", "routes/api.chat.ts")). GETs reach the loader, POSTs the action; both hand
// the Request to the handler. Keys come from process.env, never from the browser.
import { createParlanceHandler } from '@parlance/server';
import { models, run, secret } from '../parlance.server';
import type { Route } from './+types/api.chat';

const handler = createParlanceHandler({ basePath: '/api/chat', models, run, secret });

export const loader = ({ request }: Route.LoaderArgs) => handler(request);
export const action = ({ request }: Route.ActionArgs) => handler(request);
