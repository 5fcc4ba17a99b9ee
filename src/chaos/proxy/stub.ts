// A toxic running on one link (Toxiproxy's ToxicStub): its input queue and the Go-`select`-like
// waits its `pipe` loop uses (next input, interrupt, timer).

import { noopStage, type Chunk, type StubEvent, type ToxicStage, type ToxicStub } from './toxics/toxic.ts';
import type { Toxic } from './toxic.ts';

/** End of a link's input, passed along the chain like a chunk. */
export const EOF = Symbol('eof');
export type Item = Chunk | typeof EOF;

/** What a runner needs of the link it runs on (link.ts). */
export interface RunnerLink {
  readonly dead: boolean;
  /** Re-check backpressure after input was taken from a queue. */
  checkFlow(): void;
  /** Calls `fn` when the link is torn down; returns the unsubscribe. */
  onDeath(fn: () => void): () => void;
  /** Hands `item` to the stage after `runner` (or the destination). */
  deliverAfter(runner: Runner, item: Item): void;
}

/** A toxic running on one link; it is the stub the toxic's `pipe` talks to. */
export class Runner implements ToxicStub {
  state: unknown;
  closed = false;
  /** Spliced out of its link: anything it still sends is dropped. */
  detached = false;
  /** Whether this link's toxicity roll selected the real toxic (else noop ran). */
  applied = false;
  private queue: Item[] = [];
  queuedBytes = 0;
  private eofSeen = false;
  private interruptPending = false;
  private waiter: ((ev: StubEvent) => void) | null = null;
  private waiterTimer: NodeJS.Timeout | null = null;
  private sleeper: ((ok: boolean) => void) | null = null;
  private running: Promise<void> | null = null;
  private stage: ToxicStage = noopStage;

  constructor(
    readonly link: RunnerLink,
    public toxic: Toxic,
  ) {
    this.state = toxic.def.newState?.();
  }

  start(): void {
    this.interruptPending = false;
    this.applied = Math.random() < this.toxic.toxicity;
    this.stage = this.applied ? this.toxic.def.create({ ...this.toxic.attributes }) : noopStage;
    const stage = this.stage;
    this.running = (async () => {
      try {
        await stage.pipe(this);
      } catch {
        this.close();
      }
    })();
  }

  /** Ask the running toxic to return, and wait until it has. */
  async interrupt(): Promise<void> {
    if (!this.running) return;
    this.interruptPending = true;
    this.wake({ kind: 'interrupt' }, false);
    await this.running;
    this.running = null;
    this.interruptPending = false;
  }

  /** Wake whatever the toxic is waiting on (used for interrupts and link teardown). */
  wake(ev: StubEvent, sleepOk: boolean): void {
    const w = this.waiter;
    if (w) {
      this.clearWaiter();
      w(ev);
    }
    this.sleeper?.(sleepOk); // clears this.sleeper itself
  }

  /**
   * The toxic is being removed (Toxiproxy's link.RemoveToxic): run the toxic's own Cleanup on this
   * link whether its toxicity roll ran the toxic or the noop, as Go calls it on the wrapper's toxic,
   * not on what ran (a spared link still has a `timeout` toxic's Cleanup close it).
   */
  cleanup(): void {
    if (this.closed) return;
    const stage = this.applied ? this.stage : this.toxic.def.create({ ...this.toxic.attributes });
    stage.cleanup?.(this);
  }

  /** Input from the previous stage (or the source socket). */
  push(item: Item): void {
    if (this.closed || this.link.dead) {
      return;
    }
    if (this.waiter && this.queue.length === 0 && !this.interruptPending) {
      const w = this.waiter;
      this.clearWaiter();
      if (item === EOF) {
        this.eofSeen = true;
        w({ kind: 'eof' });
      } else {
        w({ kind: 'chunk', chunk: item });
      }
      return;
    }
    this.queue.push(item);
    if (item !== EOF) this.queuedBytes += item.data.length;
  }

  /** Queued input not yet taken by the toxic, for handing on when the toxic is removed. */
  drain(): Item[] {
    const items = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    if (this.eofSeen && !items.includes(EOF)) items.push(EOF);
    return items;
  }

  private clearWaiter(): void {
    this.waiter = null;
    if (this.waiterTimer) clearTimeout(this.waiterTimer);
    this.waiterTimer = null;
  }

  // --- ToxicStub ---

  next(timeoutMs?: number): Promise<StubEvent> {
    if (this.link.dead || this.interruptPending) return Promise.resolve({ kind: 'interrupt' });
    const item = this.queue.shift();
    if (item !== undefined) {
      if (item === EOF) {
        this.eofSeen = true;
        return Promise.resolve({ kind: 'eof' });
      }
      this.queuedBytes -= item.data.length;
      this.link.checkFlow();
      return Promise.resolve({ kind: 'chunk', chunk: item });
    }
    if (this.eofSeen) return Promise.resolve({ kind: 'eof' });
    return new Promise<StubEvent>((resolve) => {
      this.waiter = resolve;
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        this.waiterTimer = setTimeout(
          () => {
            if (this.waiter === resolve) {
              this.clearWaiter();
              resolve({ kind: 'timeout' });
            }
          },
          Math.max(0, timeoutMs),
        );
      }
    });
  }

  sleep(ms: number): Promise<boolean> {
    if (this.link.dead || this.interruptPending) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
      const done = (ok: boolean): void => {
        if (this.sleeper !== done) return;
        this.sleeper = null;
        if (timer) {
          clearTimeout(timer as NodeJS.Timeout);
          clearImmediate(timer as NodeJS.Immediate);
        }
        resolve(ok);
      };
      this.sleeper = done;
      if (!Number.isFinite(ms)) return; // until interrupted
      // Node timers have 1 ms resolution; sub-millisecond sleeps just yield to I/O.
      timer = ms >= 1 ? setTimeout(() => done(true), ms) : setImmediate(() => done(true));
    });
  }

  async wait(ms: number): Promise<void> {
    if (this.link.dead) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, Math.max(0, ms));
      const off = this.link.onDeath(finish);
      function finish(): void {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  }

  send(chunk: Chunk): void {
    if (this.detached || this.link.dead) return;
    this.link.deliverAfter(this, chunk);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queuedBytes = 0;
    if (!this.detached) this.link.deliverAfter(this, EOF);
    this.link.checkFlow();
  }
}
