/** Percentiles and table cells for the load bench. */
import type { StreamResult } from './sse-client.ts';

/** Nearest-rank percentile of the finite values (NaN when there are none). */
export function percentile(values: number[], p: number): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface BatchSummary {
  label: string;
  concurrency: number;
  completed: number;
  failed: number;
  /** Distinct frame counts per completed stream, e.g. '57' or '56-57'. */
  framesPerStream: string;
  /** Frames over all completed streams. */
  framesTotal: number;
  ttfb: { p50: number; p99: number };
  ttft: { p50: number; p99: number };
  total: { p50: number; p99: number };
  wallMs: number;
  problems: string[];
}

export function summarize(label: string, concurrency: number, results: StreamResult[], wallMs: number): BatchSummary {
  const ok = results.filter((r) => r.ok);
  const counts = ok.map((r) => r.frames);
  const min = counts.length ? Math.min(...counts) : NaN;
  const max = counts.length ? Math.max(...counts) : NaN;
  const pick = (key: 'ttfbMs' | 'ttftMs' | 'totalMs') => {
    const values = ok.map((r) => r[key]);
    return { p50: percentile(values, 50), p99: percentile(values, 99) };
  };
  return {
    label,
    concurrency,
    completed: ok.length,
    failed: results.length - ok.length,
    framesPerStream: Number.isNaN(min) ? '-' : min === max ? String(min) : `${min}-${max}`,
    framesTotal: counts.reduce((a, b) => a + b, 0),
    ttfb: pick('ttfbMs'),
    ttft: pick('ttftMs'),
    total: pick('totalMs'),
    wallMs,
    problems: [...new Set(results.filter((r) => !r.ok).map((r) => r.problem ?? 'unknown'))].slice(0, 5),
  };
}

/** The middle value (the upper one of an even count): what the benches take of their rounds. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');
export const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);
export const signedMb = (bytes: number) => `${bytes >= 0 ? '+' : ''}${mb(bytes)}`;

/** The latency columns of a batch's table row (times in ms): their headers, then {@link latencyCells}. */
export const LATENCY_HEADERS = ['TTFB p50', 'p99', 'first token p50', 'p99', 'stream p50', 'p99', 'wall ms'];

/** A batch's cells under {@link LATENCY_HEADERS}. */
export function latencyCells(b: BatchSummary): string[] {
  return [ms(b.ttfb.p50), ms(b.ttfb.p99), ms(b.ttft.p50), ms(b.ttft.p99), ms(b.total.p50), ms(b.total.p99), ms(b.wallMs)];
}

/** Left-aligned first column, right-aligned others. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows
    .map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '))
    .join('\n');
}
