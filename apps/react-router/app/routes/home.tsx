import { Chat } from '../chat';

export const meta = () => [{ title: 'Parlance on React Router' }];

export default function Home() {
  return (
    <main style={{ maxWidth: 720, margin: '2rem auto', padding: '0 1rem' }}>
      <h1>Parlance on React Router</h1>
      <Chat />
    </main>
  );
}
