/**
 * What the steps of `paystorm run` share while the run lives: its streams, its clock, the gate
 * records wait behind until the history opens, and what must be closed on every way out.
 */
import { RunClock } from '../../engine/index.ts';
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
  private readonly cleanups: (() => Promise<void>)[] = [];

  constructor(readonly io: RunIo) {}

  /** Runs at cleanup, in reverse order of registration (the proxy closes before the service behind it). */
  onCleanup(c: () => Promise<void>): void {
    this.cleanups.push(c);
  }

  /** Closes what the steps opened; a failing close is reported, not thrown. Safe to call twice. */
  async cleanup(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) await c().catch((e) => this.io.stderr.write(`paystorm: cleanup: ${(e as Error).message}\n`));
  }
}
