/**
 * Loaded (`node --import`) into a gateway process the bench forks, Parlance's or Portkey's alike:
 * answers `{ type: 'cpu' }` over IPC with the process's user + system CPU time in µs, so both
 * gateways are measured the same way without touching their code. Plain JavaScript: Portkey's
 * process runs without tsx.
 */
process.on('message', (message) => {
  if (message?.type !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  process.send?.({ type: 'cpu', micros: user + system });
});
// The bench went away: do not outlive it.
process.on('disconnect', () => process.exit(0));
