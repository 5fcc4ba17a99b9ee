/**
 * What the steps of `paystorm run` share while the run lives: its streams, its clock, the gate
 * records wait behind until the history opens, and what must be closed on every way out.
 */
import { LiveRun, RunClock } from '../../engine/index.ts';
import type { FaultRecord, HistoryRecord, HistoryWriter, WebhookRecord } from '../../history/index.ts';

export interface RunIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Aborted on SIGINT/SIGTERM by the command wrapper. */
  signal?: AbortSignal;
}

/** Holds records that arrive before the run record (webhooks after a presentation probe), then passes them on. */
class RecordGate {
  private held: HistoryRecord[] | null = [];
  private writer: HistoryWriter | null = null;
  write = (r: WebhookRecord | FaultRecord): void => {
    if (this.held || !this.writer) this.held?.push(r);
    else this.writer.write(r);
  };
  open(writer: HistoryWriter): void {
    this.writer = writer;
    const held = this.held ?? [];
    this.held = null;
    for (const r of held) writer.write(r);
  }
}

export class RunScope {
  /** Time 0 of the run: the clock starts when the scope is made, before any server. */
  readonly clock = new RunClock();
  readonly gate = new RecordGate();
  /** What the run shows while it goes: the progress line, the metrics endpoint and the live page watch it. */
  readonly live: LiveRun;
  private readonly cleanups: (() => Promise<void>)[] = [];
  private readonly finals: (() => Promise<void>)[] = [];

  constructor(readonly io: RunIo) {
    this.live = new LiveRun((m) => io.stderr.write(`paystorm: ${m}\n`));
  }

  /**
   * Runs once the verdict is written (or the run failed), after cleanup: for what must outlive
   * the load, such as an endpoint a final scrape reads. Reverse order of registration.
   */
  onFinal(c: () => Promise<void>): void {
    this.finals.push(c);
  }

  async final(): Promise<void> {
    for (const c of this.finals.splice(0).reverse()) await c().catch((e) => this.io.stderr.write(`paystorm: closing: ${(e as Error).message}\n`));
  }

  /** Runs at cleanup, in reverse order of registration (the proxy closes before the service behind it). */
  onCleanup(c: () => Promise<void>): void {
    this.cleanups.push(c);
  }

  /** Closes what the steps opened; a failing close is reported, not thrown. Safe to call twice. */
  async cleanup(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) await c().catch((e) => this.io.stderr.write(`paystorm: cleanup: ${(e as Error).message}\n`));
  }
}
