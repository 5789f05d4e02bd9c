/** An async mutex: callers run one at a time, in arrival order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** One mutex per key (a version slug); several keys are always taken in sorted order, so two callers never deadlock. */
export class KeyedMutex {
  private readonly mutexes = new Map<string, { mutex: Mutex; users: number }>();

  async run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const take = (i: number): Promise<T> => (i === sorted.length ? fn() : this.one(sorted[i], () => take(i + 1)));
    return take(0);
  }

  private async one<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let slot = this.mutexes.get(key);
    if (!slot) this.mutexes.set(key, (slot = { mutex: new Mutex(), users: 0 }));
    slot.users++;
    try {
      return await slot.mutex.run(fn);
    } finally {
      if (--slot.users === 0) this.mutexes.delete(key);
    }
  }
}
