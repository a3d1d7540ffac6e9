/** Medians, spread and the table the bench prints. */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
/** `median (min–max)` of a series, in the unit `fmt` gives. */
export const spread = (xs: number[], fmt: (x: number) => string): string =>
  xs.length > 1 ? `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})` : fmt(xs[0] ?? Number.NaN);
export const ms = (x: number): string => `${x.toFixed(x < 10 ? 2 : 1)} ms`;
export const us = (x: number): string => `${x.toFixed(2)} µs`;
export const kb = (x: number): string => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} MB` : `${(x / 1e3).toFixed(1)} KB`);
export const mb = (x: number): string => `${(x / 2 ** 20).toFixed(1)} MB`;
export const n = (x: number): string => x.toFixed(0);
export const ratio = (a: number[], b: number[]): string => {
  const r = median(a) / median(b);
  return `${r < 0.1 ? r.toPrecision(2) : r.toFixed(2)}x`;
};

export interface Row {
  what: string;
  parlance: string;
  aisdk: string;
  /** The floor's figure, or '–' where no floor applies (React commits). */
  floor: string;
  ratio: string;
  floorRatio: string;
}

const COLUMNS = ['what', 'parlance', 'aisdk', 'floor', 'ratio', 'floorRatio'] as const;

/** A Markdown table (the README keeps the latest one, copied by update-readme.ts). */
export function table(rows: Row[]): string {
  const head: Row = { what: 'measure', parlance: 'Parlance', aisdk: 'AI SDK', floor: 'floor', ratio: 'Parlance / AI SDK', floorRatio: 'Parlance / floor' };
  const all = [head, ...rows];
  const width = (k: keyof Row) => Math.max(...all.map((r) => r[k].length));
  const line = (r: Row) => `| ${COLUMNS.map((k) => r[k].padEnd(width(k))).join(' | ')} |`;
  const rule = `| ${COLUMNS.map((k) => '-'.repeat(width(k))).join(' | ')} |`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}
