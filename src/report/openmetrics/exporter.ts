/**
 * What a run's metrics endpoint shows, kept up to date as the run goes: it watches the run's
 * LiveRun (its methods are a LiveWatcher's) and counts every history record into the series of
 * series.ts. Requests and latency are counted as the run report counts them
 * (src/history/metrics.ts): latency from the intended start, and an exchange paystorm itself cut
 * off (`failure: aborted`, a cap or an interrupt) is left out.
 */
import type { Gauge } from 'prom-client';
import { EVENT_TYPES, TERMINAL_STATUSES, type PaymentStatus, type Summary } from '../../spec/index.ts';
import { outcomeClass, type ExchangeRecord, type HistoryRecord, type WebhookRecord } from '../../history/index.ts';
import { createRunSeries, type RunSeries } from './series.ts';

/** A fault window open now. */
export interface ActiveFault {
  proxy: string;
  type: string;
}

/** Payments tracked as open at most (the oldest is forgotten beyond it): a soak must not grow without bound. */
const MAX_OPEN_PAYMENTS = 100_000;

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

export class RunMetricsExporter {
  readonly series: RunSeries;
  /** Payment ids created and not yet seen terminal, oldest first. */
  private readonly open = new Set<string>();
  /** Violations counted so far per invariant (live ones, then the verdict's remainder). */
  private readonly violationCounts = new Map<string, number>();
  private activeFaults: () => readonly ActiveFault[] = () => [];
  /** Every proxy and toxic type seen active, by `proxy\0type`. */
  private readonly faultPairs = new Map<string, { proxy: string; toxic: string }>();

  /**
   * `invariants`: the ids the oracle judges, whose violation series start at 0, so a dashboard's
   * `increase()` sees the first violation of each (a series born at 1 shows no increase).
   */
  constructor(invariants: readonly string[] = []) {
    this.series = createRunSeries((g) => this.collectFaults(g));
    for (const invariant of invariants) this.addViolations(invariant, 0);
  }

  /** Where the active-fault gauge reads the fault windows open now (the run's chaos sessions). */
  watchFaults(source: () => readonly ActiveFault[]): void {
    this.activeFaults = source;
  }

  /** Every history record, as written. */
  record(r: HistoryRecord): void {
    if (r.kind === 'exchange') this.exchange(r);
    else if (r.kind === 'webhook') this.webhook(r);
    else if (r.kind === 'fault') this.series.faultWindows.inc({ proxy: r.proxy, toxic: r.toxic.type });
  }

  /** Iterations an open-model executor could not start in time. */
  dropped(n: number, scenario: string): void {
    this.series.dropped.inc({ scenario }, n);
  }

  /** A violation the oracle confirmed while the run goes. */
  violation(v: { invariant: string }): void {
    this.addViolations(v.invariant, 1);
  }

  /**
   * The final verdict: each invariant's count is raised to the summary's (a counter only goes
   * up), so the last scrape matches summary.json whether or not violations were reported live.
   * Every judged invariant gets a series, at 0 when it held.
   */
  verdict(summary: Summary): void {
    for (const inv of summary.invariants) {
      const seen = this.violationCounts.get(inv.id) ?? 0;
      this.addViolations(inv.id, Math.max(0, inv.violations - seen));
    }
  }

  private addViolations(invariant: string, n: number): void {
    this.violationCounts.set(invariant, (this.violationCounts.get(invariant) ?? 0) + n);
    this.series.violations.inc({ invariant }, n);
  }

  private exchange(r: ExchangeRecord): void {
    if (r.failure === 'aborted') return;
    const s = this.series;
    s.requests.inc({ op: r.op, status_class: outcomeClass(r.status, r.failure), scenario: r.scenario });
    s.duration.observe({ op: r.op }, Math.max(0, r.tEnd - r.tIntended) / 1000);
    if (r.status === 429) s.rateLimited.inc({ key: r.key, scenario: r.scenario });
    if (r.failure !== null) s.connectionErrors.inc({ op: r.op, kind: r.failure });
    this.trackPayments(r);
  }

  private webhook(r: WebhookRecord): void {
    const type = r.type === null ? 'none' : KNOWN_EVENT_TYPES.has(r.type) ? r.type : 'other';
    this.series.webhookDeliveries.inc({ type, signature: r.signature });
    if (r.stalledMs !== undefined) this.series.webhookFailuresInjected.inc({ kind: 'stall' });
    else if (r.answered === 500) this.series.webhookFailuresInjected.inc({ kind: 'fail' });
    if (r.payment) this.seenStatus(r.payment.id, r.payment.status);
  }

  /** Open payments: a create answered with a payment not yet terminal opens one; any record showing it terminal closes it. */
  private trackPayments(r: ExchangeRecord): void {
    if (r.status < 200 || r.status >= 300) return;
    const p = r.payment;
    if (p) {
      if ((r.op === 'create' || r.op === 'create_hpp') && !TERMINAL_STATUSES.has(p.status)) {
        this.open.add(p.id);
        if (this.open.size > MAX_OPEN_PAYMENTS) this.open.delete(this.open.values().next().value as string);
      } else this.seenStatus(p.id, p.status);
    }
    if (r.list) for (let i = 0; i < r.list.ids.length; i++) this.seenStatus(r.list.ids[i], r.list.statuses[i] as PaymentStatus);
    this.series.openPayments.set(this.open.size);
  }

  private seenStatus(id: string, status: PaymentStatus): void {
    if (TERMINAL_STATUSES.has(status) && this.open.delete(id)) this.series.openPayments.set(this.open.size);
  }

  /** At each scrape: the windows open now per proxy and toxic; a pair seen before and closed now reads 0, so its line does not break off. */
  private collectFaults(g: Gauge<'proxy' | 'toxic'>): void {
    for (const labels of this.faultPairs.values()) g.set(labels, 0);
    for (const f of this.activeFaults()) {
      const k = `${f.proxy}\u0000${f.type}`;
      if (!this.faultPairs.has(k)) this.faultPairs.set(k, { proxy: f.proxy, toxic: f.type });
      g.inc(this.faultPairs.get(k)!, 1);
    }
  }
}
