/** Timers the service and processor own, so close() can cancel every one of them. */
export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  /** Runs fn after ms; returns a cancel function. Does nothing once closed. */
  after(ms: number, fn: () => void): () => void {
    if (this.closed) return () => {};
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, Math.max(0, ms));
    // The HTTP server keeps a serving process alive; pending timers alone should not.
    t.unref();
    this.timers.add(t);
    return () => {
      clearTimeout(t);
      this.timers.delete(t);
    };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get pending(): number {
    return this.timers.size;
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
