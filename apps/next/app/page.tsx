import { Chat } from './chat';

export default function Home() {
  return (
    <main style={{ maxWidth: 720, margin: '2rem auto', padding: '0 1rem' }}>
      <h1>Parlance on Next.js</h1>
      <Chat />
    </main>
  );
}
