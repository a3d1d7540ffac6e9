/**
 * Block ids the decoders give the blocks of a message: a letter for the kind and a counter
 * (`t0`, `r1`). They are opaque to every reader and unique within a message; short, because
 * every delta frame on the wire repeats its block's id.
 */
const LETTER = { text: 't', reasoning: 'r', refusal: 'f', compaction: 'c' } as const;

export function blockId(kind: keyof typeof LETTER, n: number): string {
  return `${LETTER[kind]}${n}`;
}
