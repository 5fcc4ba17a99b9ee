/**
 * What the live page shows, kept from a LiveRun as the run goes: the report's charts (the same
 * metrics aggregator and chart builders as report.html, bounded for the page), the scenario and
 * its phase, elapsed time and the plan's time left, counters, the violations the oracle confirms,
 * and at the end the verdict. `state()` is what the server sends; nothing in it holds a secret key
 * (keys appear as labels only, and every text from the target is redacted).
 */
import { MetricsAggregator, type HistoryRecord } from '../../history/index.ts';
import type { Evidence, Summary } from '../../spec/summary.ts';
import { chartsFor, faultBands, type ChartSpec, type FaultWindow } from '../html/chart-data.ts';
import { redactSecrets } from '../redact.ts';
import { verdictReason } from '../verdict.ts';
import { boundRateSamples, boundTimeline } from '../bound.ts';

/** Fault windows kept for the charts' shading (the newest). */
const MAX_FAULTS = 500;
/** The rate shown: requests per second over the last few whole seconds. */
const RATE_SECONDS = 3;
/** Examples kept per invariant (the first ones found); the rest are counted. */
export const EXAMPLES_PER_INVARIANT = 3;
/** A violation the oracle confirmed while the run goes (the engine's LiveViolation; the report reads no engine module). */
export interface ConfirmedViolation {
  invariant: string;
  rules: readonly string[];
  evidence: Evidence;
  /** Run time (ms) when it was found. */
  t: number;
}

export interface ViolationExample {
  message: string;
  requestIds: string[];
  /** Run time (ms) when it was found; null when only the final verdict named it and gave no time. */
  t: number | null;
}

/** The violations of one invariant: one line on the page however many are found. */
export interface DashboardViolation {
  invariant: string;
  rules: string[];
  /** How many were found: confirmed while running, or the final verdict's examples. */
  count: number;
  /** The first EXAMPLES_PER_INVARIANT, in the order found. */
  examples: ViolationExample[];
  /** Found by the final verdict, not while the run went. */
  atEnd: boolean;
}

export interface DashboardState {
  runId: string | null;
  /** starting: no load yet; running; judging: the load ended, the verdict is being judged; done. */
  status: 'starting' | 'running' | 'judging' | 'done';
  elapsedMs: number;
  /** The suite's plan: its length, the line that explains it, and the time left of it. */
  plan: { totalMs: number; line: string; leftMs: number } | null;
  scenario: { name: string; index: number; total: number } | null;
  /** What the scenario waits for, with its time left when known. */
  phase: { note: string; leftMs: number | null } | null;
  counters: {
    requests: number;
    /** Requests per second over the last few whole seconds. */
    rate: number;
    s2xx: number;
    /** 4xx answers, 429s included. */
    s4xx: number;
    s429: number;
    s5xx: number;
    /** Requests with no answer. */
    failures: number;
    dropped: number;
    webhooks: number;
    violations: number;
  };
  charts: ChartSpec[];
  /** One entry per violated invariant, in the order first found; counters.violations counts every violation. */
  violations: DashboardViolation[];
  /**
   * The live judge holds off while the load saturates the machine (src/cli/live/load-pacer.ts):
   * violations found meanwhile show when it catches up, at most about 30 s late.
   */
  judgeHeld: boolean;
  final: { verdict: Summary['verdict']; exitCode: number; reason: string } | null;
}

export interface DashboardFeedOptions {
  /** The run's clock (ms since its start). */
  clock: { now(): number };
  runId?: string;
}

/** A watcher of the run's LiveRun (src/engine/live.ts): the run step passes it to `scope.live.watch`. */
export class DashboardFeed {
  private readonly metrics = new MetricsAggregator();
  private readonly faults: FaultWindow[] = [];
  private readonly byInvariant = new Map<string, DashboardViolation>();
  private violationCount = 0;
  private webhooks = 0;
  private readonly runId: string | null;
  private status: DashboardState['status'] = 'starting';
  private planned: { totalMs: number; line: string } | null = null;
  /** When the first scenario started: the plan counts from there. */
  private loadStart: number | null = null;
  private current: DashboardState['scenario'] = null;
  private phaseNote: { note: string; until: number | null } | null = null;
  private finalState: DashboardState['final'] = null;
  private judgeHeld = false;
  private readonly listeners = new Set<(urgent: boolean) => void>();

  constructor(private readonly opts: DashboardFeedOptions) {
    this.runId = opts.runId ?? null;
  }

  /** Called when something the page should show at once happened (urgent: the verdict); returns the unsubscribe. */
  onChange(fn: (urgent: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(urgent = false): void {
    for (const fn of this.listeners) fn(urgent);
  }

  readonly record = (r: HistoryRecord): void => {
    this.metrics.add(r);
    if (r.kind === 'webhook') this.webhooks++;
    else if (r.kind === 'fault') {
      this.faults.push({ tStart: r.tStart, tEnd: r.tEnd, type: r.toxic.type, link: r.link });
      if (this.faults.length > MAX_FAULTS) this.faults.shift();
    }
  };

  dropped(n: number): void {
    this.metrics.addDropped(n);
  }

  plan(totalMs: number, line: string): void {
    this.planned = { totalMs, line };
  }

  scenario(name: string, index: number, total: number): void {
    this.loadStart ??= this.opts.clock.now();
    this.status = 'running';
    this.current = { name, index, total };
    this.phaseNote = null;
    this.changed();
  }

  phase(note: string | null, ms?: number): void {
    this.phaseNote = note === null ? null : { note, until: ms !== undefined && ms > 0 ? this.opts.clock.now() + ms : null };
    this.changed();
  }

  violation(v: ConfirmedViolation): void {
    this.addViolation(v.invariant, v.rules, { message: v.evidence.message, requestIds: v.evidence.requestIds ?? [], t: v.t }, false);
    this.changed();
  }

  judging(held: boolean): void {
    this.judgeHeld = held;
    this.changed();
  }

  loadEnded(): void {
    this.status = 'judging';
    this.phaseNote = null;
    // Once the load is over, the judge reads everything: the status says it is judging.
    this.judgeHeld = false;
    this.changed();
  }

  /** The verdict: lists the violations the oracle found only at the end, and ends the feed. */
  verdict(summary: Summary): void {
    for (const inv of summary.invariants) {
      if (inv.status !== 'fail' || this.byInvariant.has(inv.id)) continue;
      for (const e of inv.examples) this.addViolation(inv.id, inv.rules, { message: e.message, requestIds: e.requestIds ?? [], t: e.times?.[0] ?? null }, true);
    }
    this.status = 'done';
    this.finalState = { verdict: summary.verdict, exitCode: summary.exitCode, reason: redactSecrets(verdictReason(summary)) };
    this.changed(true);
  }

  get done(): boolean {
    return this.finalState !== null;
  }

  private addViolation(invariant: string, rules: readonly string[], e: ViolationExample, atEnd: boolean): void {
    this.violationCount++;
    let entry = this.byInvariant.get(invariant);
    if (!entry) this.byInvariant.set(invariant, (entry = { invariant, rules: [...rules], count: 0, examples: [], atEnd }));
    entry.count++;
    if (entry.examples.length < EXAMPLES_PER_INVARIANT) entry.examples.push({ message: redactSecrets(e.message), requestIds: e.requestIds.slice(0, 3).map(redactSecrets), t: e.t });
  }

  state(): DashboardState {
    const now = this.opts.clock.now();
    // The timeline as it stands, not a copy of every second (the points are read, never changed here).
    const m = { ...this.metrics.liveView(), latency: {}, trends: {} };
    // While the load runs, the second now under way is not complete: leave it out (it would dip).
    const timeline = this.status === 'running' || this.status === 'starting' ? m.timeline.filter((p) => p.t < Math.floor(now / 1000)) : m.timeline;
    const total = (pick: (p: (typeof timeline)[number]) => number) => timeline.reduce((a, p) => a + pick(p), 0);
    const recent = timeline.slice(-RATE_SECONDS);
    const plan = this.planned ? { ...this.planned, line: redactSecrets(this.planned.line), leftMs: Math.max(0, (this.loadStart ?? now) + this.planned.totalMs - now) } : null;
    const planEndS = plan ? ((this.loadStart ?? now) + plan.totalMs) / 1000 : 0;
    const phaseLeft = this.phaseNote?.until != null ? this.phaseNote.until - now : null;
    if (phaseLeft !== null && phaseLeft <= 0) this.phaseNote = null;
    return {
      runId: this.runId,
      status: this.status,
      elapsedMs: now,
      plan,
      scenario: this.current ? { ...this.current, name: redactSecrets(this.current.name) } : null,
      phase: this.phaseNote ? { note: redactSecrets(this.phaseNote.note), leftMs: phaseLeft } : null,
      counters: {
        requests: m.requests,
        rate: recent.length ? Math.round((recent.reduce((a, p) => a + p.requests, 0) / recent.length) * 10) / 10 : 0,
        s2xx: total((p) => p.s2xx),
        s4xx: total((p) => p.s4xx),
        s429: total((p) => p.s429),
        s5xx: total((p) => p.s5xx),
        failures: total((p) => p.failures),
        dropped: m.dropped,
        webhooks: this.webhooks,
        violations: this.violationCount,
      },
      // The x axis spans the plan (or the time so far, when longer): the data grows into it.
      charts: chartsFor({ ...m, timeline: boundTimeline(timeline), rate: boundRateSamples(m.rate) }, faultBands({ faults: this.faults }), Math.max(now / 1000, planEndS)),
      violations: [...this.byInvariant.values()].map((v) => ({ ...v, examples: [...v.examples] })),
      judgeHeld: this.judgeHeld && this.status === 'running',
      final: this.finalState,
    };
  }
}
