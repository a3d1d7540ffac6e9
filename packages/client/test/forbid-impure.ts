/**
 * Makes every source of randomness and time that Next.js rejects during prerender
 * (`cacheComponents`: crypto.randomUUID, crypto.getRandomValues, Math.random, Date.now,
 * `new Date()`) throw, as a build would. Returns the function that restores them.
 */
import { vi } from 'vitest';

export function forbidImpureReads(): () => void {
  const fail = (what: string) => () => {
    throw new Error(`${what} read during construction/render`);
  };
  const spies = [
    vi.spyOn(crypto, 'randomUUID').mockImplementation(fail('crypto.randomUUID()')),
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(fail('crypto.getRandomValues()')),
    vi.spyOn(Math, 'random').mockImplementation(fail('Math.random()')),
    vi.spyOn(Date, 'now').mockImplementation(fail('Date.now()')),
  ];
  const RealDate = Date;
  class NoClockDate extends RealDate {
    constructor(...args: ConstructorParameters<typeof Date> | []) {
      if (args.length === 0) throw new Error('new Date() read during construction/render');
      super(...(args as [number]));
    }
  }
  globalThis.Date = NoClockDate as DateConstructor;
  return () => {
    globalThis.Date = RealDate;
    for (const spy of spies) spy.mockRestore();
  };
}
