// One direction of one connection (Toxiproxy's link.go): source socket ▶ a runner per toxic ▶
// destination socket, with backpressure on the source.

import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { EOF, Runner, type Item, type RunnerLink } from './stub.ts';
import type { Direction, Toxic } from './toxic.ts';

/** Source reading pauses while this many bytes wait in a link's toxic queues / destination. */
const HIGH_WATER = 1 << 20;
const LOW_WATER = 1 << 18;

/** What a link needs of the connection it belongs to (connection.ts). */
export interface LinkOwner {
  /** Sockets to close with RST (SO_LINGER 0) rather than FIN. */
  readonly linger0: Set<net.Socket>;
  /** The link wrote its last byte (or its destination went away). */
  linkEnded(link: Link): void;
}

export class Link implements RunnerLink {
  runners: Runner[] = [];
  dead = false;
  private sourceDone = false;
  private sinkDone = false;
  private paused = false;
  private deathListeners = new Set<() => void>();
  private readonly onData = (data: Buffer): void => {
    this.deliver(0, { data, ts: performance.now() });
  };
  private readonly onSourceEnd = (): void => this.endSource();
  private readonly onDrain = (): void => this.checkFlow();
  /** The destination is gone (peer reset/closed it): nothing more can be written, so this link is over. */
  private readonly onDestClose = (): void => {
    if (this.sinkDone) return;
    this.sinkDone = true;
    this.conn.linkEnded(this);
  };

  constructor(
    readonly conn: LinkOwner,
    readonly direction: Direction,
    readonly source: net.Socket,
    readonly dest: net.Socket,
  ) {}

  start(toxics: readonly Toxic[]): void {
    for (const t of toxics) {
      if (t.def.resetOnClose) {
        this.conn.linger0.add(this.source);
        this.conn.linger0.add(this.dest);
      }
      this.runners.push(new Runner(this, t));
    }
    for (const r of this.runners) r.start();
    this.source.on('data', this.onData);
    this.source.on('end', this.onSourceEnd);
    this.source.on('close', this.onSourceEnd);
    this.dest.on('drain', this.onDrain);
    this.dest.on('close', this.onDestClose);
  }

  onDeath(fn: () => void): () => void {
    this.deathListeners.add(fn);
    return () => this.deathListeners.delete(fn);
  }

  /** The source stopped (EOF, error, closed by the other direction): end of input. */
  endSource(): void {
    if (this.sourceDone) return;
    this.sourceDone = true;
    this.source.off('data', this.onData);
    this.source.off('end', this.onSourceEnd);
    this.source.off('close', this.onSourceEnd);
    this.deliver(0, EOF);
  }

  deliverAfter(runner: Runner, item: Item): void {
    const i = this.runners.indexOf(runner);
    if (i < 0) return;
    this.deliver(i + 1, item);
  }

  private deliver(index: number, item: Item): void {
    if (this.dead) return;
    if (index < this.runners.length) {
      this.runners[index].push(item);
      this.checkFlow();
      return;
    }
    this.sink(item);
  }

  private sink(item: Item): void {
    if (this.sinkDone) return;
    if (item === EOF) {
      this.sinkDone = true;
      this.dest.off('drain', this.onDrain);
      this.dest.off('close', this.onDestClose);
      this.conn.linkEnded(this);
      return;
    }
    if (!this.dest.destroyed && !this.dest.writableEnded) this.dest.write(item.data);
    this.checkFlow();
  }

  /** Backpressure: pause the source while too much waits in toxic queues or in dest. */
  checkFlow(): void {
    if (this.sourceDone || this.dead) return;
    let pressure = this.dest.writableLength;
    for (const r of this.runners) pressure += r.queuedBytes;
    if (!this.paused && pressure > HIGH_WATER) {
      this.paused = true;
      this.source.pause();
    } else if (this.paused && pressure < LOW_WATER) {
      this.paused = false;
      this.source.resume();
    }
  }

  get ended(): boolean {
    return this.sinkDone;
  }

  addToxic(toxic: Toxic): void {
    if (this.sinkDone || this.dead) return;
    const r = new Runner(this, toxic);
    this.runners.push(r);
    r.start();
  }

  async updateToxic(toxic: Toxic): Promise<void> {
    const r = this.runners.find((x) => x.toxic.name === toxic.name);
    if (!r || r.closed) return;
    await r.interrupt();
    if (r.closed || r.detached || this.dead) return;
    r.toxic = toxic;
    r.start();
  }

  async removeToxic(name: string): Promise<void> {
    const r = this.runners.find((x) => x.toxic.name === name);
    if (!r) return;
    if (!r.closed) {
      await r.interrupt();
      r.cleanup();
    }
    const pending = r.closed ? [] : r.drain();
    const i = this.runners.indexOf(r);
    r.detached = true;
    if (i >= 0) this.runners.splice(i, 1);
    for (const item of pending) this.deliver(i, item);
    this.checkFlow();
  }

  /** Tear down: stop every toxic loop and drop everything in flight. */
  kill(): void {
    if (this.dead) return;
    this.dead = true;
    this.source.off('data', this.onData);
    this.source.off('end', this.onSourceEnd);
    this.source.off('close', this.onSourceEnd);
    this.dest.off('drain', this.onDrain);
    this.dest.off('close', this.onDestClose);
    for (const r of this.runners) r.wake({ kind: 'interrupt' }, false);
    for (const fn of [...this.deathListeners]) fn();
    this.deathListeners.clear();
  }
}
