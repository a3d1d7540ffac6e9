/** A Web Storage over a Map whose Nth write (counting from 1) fails as the test says: it throws (quota), or writes half the value. */
export type Fault = 'throw' | 'half' | 'half-and-throw';

export class FaultyStorage implements Storage {
  #items = new Map<string, string>();
  writes = 0;
  constructor(public fault: (n: number, key: string) => Fault | undefined = () => undefined) {}
  get length() {
    return this.#items.size;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    const fault = this.fault(++this.writes, key);
    if (fault === 'throw') throw new DOMException(`Setting the value of '${key}' exceeded the quota.`, 'QuotaExceededError');
    if (fault) this.#items.set(key, value.slice(0, Math.floor(value.length / 2)));
    else this.#items.set(key, value);
    if (fault === 'half-and-throw') throw new Error('The write was cut off');
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  clear() {
    this.#items.clear();
  }
}
