import type { BuildResult } from 'esbuild';

/** Builds server.ts into one in-memory ESM file with its esbuild metafile. */
export function buildWorker(): Promise<BuildResult<{ write: false; metafile: true }>>;
