import { Chat } from '../chat';
import type { Route } from './+types/home';

export function meta(_: Route.MetaArgs) {
  return [{ title: 'Parlance on React Router' }, { name: 'description', content: 'A chat over the Parlance resource route' }];
}

export default function Home() {
  return (
    <main style={{ maxWidth: 720, margin: '2rem auto', padding: '0 1rem' }}>
      <h1>Parlance on React Router</h1>
      <Chat />
    </main>
  );
}
