/**
 * What a run shows while it goes, in one place: the engine and the live oracle feed a LiveRun,
 * and watchers read it (the progress line, the metrics endpoint, the live page). A watcher that
 * throws is dropped with a note on stderr: watching must never stop a load.
 */
import type { Evidence, Summary } from '../spec/index.ts';
import type { HistoryRecord } from '../history/index.ts';

/** A violation the oracle has confirmed while the run goes (it will be in the final verdict). */
export interface LiveViolation {
  invariant: string;
  rules: readonly string[];
  evidence: Evidence;
  /** Run time (ms since the run's start) when it was found. */
  t: number;
}

export interface LiveWatcher {
  /** Every history record, as written. */
  record?(r: HistoryRecord): void;
  /** Iterations an open-model executor could not start in time. */
  dropped?(n: number, scenario: string): void;
  /** The suite's planned length (ms from the first scenario's start) and the plan line, once, before the load. */
  plan?(totalMs: number, line: string): void;
  /** A scenario started (index of total). */
  scenario?(name: string, index: number, total: number): void;
  /** What the scenario waits for, for `ms` if given; null clears. */
  phase?(note: string | null, ms?: number): void;
  violation?(v: LiveViolation): void;
  /** The live judge holds off while the load saturates the machine (true), or judges as the run goes again (false): violations found meanwhile show later. */
  judging?(held: boolean): void;
  /** The load is over; the verdict is being judged. */
  loadEnded?(): void;
  /** The final verdict (also the last thing a watcher is told). */
  verdict?(summary: Summary): void;
}

type Event = { [K in keyof LiveWatcher]-?: Parameters<NonNullable<LiveWatcher[K]>> };

export class LiveRun {
  private readonly watchers = new Set<LiveWatcher>();
  /** Confirmed violations so far, in the order found. */
  readonly violations: LiveViolation[] = [];

  constructor(private readonly onWatcherError: (message: string) => void = (m) => process.stderr.write(`paystorm: ${m}\n`)) {}

  watch(w: LiveWatcher): () => void {
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  private emit<K extends keyof LiveWatcher>(kind: K, ...args: Event[K]): void {
    for (const w of this.watchers) {
      const f = w[kind] as ((...a: Event[K]) => void) | undefined;
      if (!f) continue;
      try {
        f.apply(w, args);
      } catch (e) {
        this.watchers.delete(w);
        this.onWatcherError(`a live watcher failed on ${kind} and was dropped: ${(e as Error)?.message ?? String(e)}`);
      }
    }
  }

  readonly record = (r: HistoryRecord): void => this.emit('record', r);
  dropped(n: number, scenario: string): void {
    this.emit('dropped', n, scenario);
  }
  plan(totalMs: number, line: string): void {
    this.emit('plan', totalMs, line);
  }
  scenario(name: string, index: number, total: number): void {
    this.emit('scenario', name, index, total);
  }
  phase(note: string | null, ms?: number): void {
    this.emit('phase', note, ms);
  }
  violation(v: LiveViolation): void {
    this.violations.push(v);
    this.emit('violation', v);
  }
  judging(held: boolean): void {
    this.emit('judging', held);
  }
  loadEnded(): void {
    this.emit('loadEnded');
  }
  verdict(summary: Summary): void {
    this.emit('verdict', summary);
  }
}
