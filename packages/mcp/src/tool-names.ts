/**
 * MCP tool names may hold `.` and `/` and run to 128 characters
 * (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names);
 * providers take `[a-zA-Z0-9_-]{1,64}` (the engine's `tool()` rule). Each server
 * name maps to one engine name: other characters become `_`, the prefix goes first,
 * the result is cut to 64, and a name already taken gets `_2`, `_3`, ...
 */
const MAX = 64;

function base(prefix: string, name: string): string {
  const cleaned = `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  return (cleaned === '' ? 'tool' : cleaned).slice(0, MAX);
}

/** Engine names for a list of server tool names, in order, all distinct. */
export function engineToolNames(names: readonly string[], prefix = ''): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    let candidate = base(prefix, name);
    for (let n = 2; taken.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = `${base(prefix, name).slice(0, MAX - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    return candidate;
  });
}
