/**
 * Loaded (`node --import`) into a gateway process the bench forks, Parlance's or Portkey's alike:
 * answers `{ type: 'cpu' }` over IPC with the process's user + system CPU time in µs, so both
 * gateways are measured the same way without touching their code. When the process runs with
 * `--expose-gc`, a full collection runs first, so the CPU read between two such messages includes
 * collecting the garbage made between them (each measured segment pays for its own garbage, not
 * for the previous one's). Plain JavaScript: Portkey's process runs without tsx.
 */
process.on('message', (message) => {
  if (message?.type !== 'cpu') return;
  if (typeof globalThis.gc === 'function') globalThis.gc();
  const { user, system } = process.cpuUsage();
  process.send?.({ type: 'cpu', micros: user + system });
});
// The bench went away: do not outlive it.
process.on('disconnect', () => process.exit(0));
