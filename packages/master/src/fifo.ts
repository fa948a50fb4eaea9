/** A first-in first-out list that does not copy itself on every take. */
export class Fifo<T> {
  private items: Array<T | undefined> = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/**
 * Runs async tasks in arrival order, a few at a time, giving the event loop back once a slice
 * of `sliceMs` is used: a burst of minions' hellos (a key lookup and a signature each, on a
 * store that answers synchronously) is worked off in slices instead of one long block.
 * Tasks handle their own failures.
 */
export class SlicedQueue {
  private readonly tasks = new Fifo<() => Promise<void>>();
  private workers = 0;
  private sliceStart = 0;
  private readonly concurrency: number;
  private readonly sliceMs: number;
  constructor(concurrency: number, sliceMs: number) {
    this.concurrency = concurrency;
    this.sliceMs = sliceMs;
  }

  get length(): number {
    return this.tasks.length;
  }

  push(task: () => Promise<void>): void {
    this.tasks.push(task);
    if (this.workers < this.concurrency) {
      this.workers++;
      this.work().catch(() => undefined);
    }
  }

  private turn?: Promise<void>;
  private nextTurn(): Promise<void> {
    this.turn ??= new Promise((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        this.sliceStart = performance.now();
        resolve();
      }),
    );
    return this.turn;
  }

  private async work(): Promise<void> {
    for (let task = this.tasks.shift(); task; task = this.tasks.shift()) {
      // the workers share one slice a turn: all wait for the next turn once it is used up
      while (performance.now() - this.sliceStart > this.sliceMs) await this.nextTurn();
      try {
        await task();
      } catch {
        // a task catches what it cares about: a stray rejection must not stop the worker
      }
    }
    this.workers--;
  }
}
