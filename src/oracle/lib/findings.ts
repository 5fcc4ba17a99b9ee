/** Counting what an invariant judged and keeping a few violations as evidence. */
import type { Evidence, Finding } from '../../spec/index.ts';
import type { ExchangeRecord, WebhookRecord } from '../../history/index.ts';
import type { InvariantOutcome } from '../types.ts';

export const MAX_EXAMPLES = 5;
const BODY_MAX = 300;

/**
 * Where a violation found while a record is being judged is told at once (the live verdict).
 * The judge sets it around each check's `onRecord` when someone listens (judge.ts `onViolation`)
 * and clears it before `finish()`: only violations confirmed record by record are live.
 */
export const liveViolations: { sink: ((e: Evidence) => void) | null } = { sink: null };

/**
 * A violation confirmed while records are being judged that the check counts only at `finish()`
 * (it groups its evidence there): told to the live sink now, counted nowhere.
 */
export function announceViolation(e: Evidence): void {
  liveViolations.sink?.(e);
}

/** While a check is created (judge.ts), the Findings it makes, so that an interim judgement can take back what its finish() adds. */
export const findingsCreated: { list: Findings[] | null } = { list: null };

export class Findings {
  constructor() {
    findingsCreated.list?.push(this);
  }

  checked = 0;
  violations = 0;
  readonly examples: Evidence[] = [];
  /** Answers the spec allows but that are lenient, by finding id: reported as observation findings, never violations. */
  readonly observed = new Map<string, { text: string; rules: string[]; labels: string[]; recs: Rec[] }>();

  check(n = 1): void {
    this.checked += n;
  }

  /** Takes back, when called, what is added after this: an interim judgement (judge.ts) leaves the counts as they were. */
  mark(): () => void {
    const checked = this.checked;
    const violations = this.violations;
    const examples = this.examples.length;
    const observed = new Map([...this.observed].map(([id, o]) => [id, { labels: o.labels.length, recs: o.recs.length }]));
    return () => {
      this.checked = checked;
      this.violations = violations;
      this.examples.length = examples;
      for (const [id, o] of this.observed) {
        const was = observed.get(id);
        if (!was) this.observed.delete(id);
        else {
          o.labels.length = was.labels;
          o.recs.length = was.recs;
        }
      }
    };
  }

  violation(e: Evidence): void {
    this.violations++;
    if (this.examples.length < MAX_EXAMPLES) this.examples.push(e);
    liveViolations.sink?.(e);
  }

  /** One lenient answer under finding `id` (`text`: one sentence saying what was accepted and why that is allowed). */
  observe(id: string, text: string, rules: string[], label: string, rec: Rec): void {
    let o = this.observed.get(id);
    if (!o) this.observed.set(id, (o = { text, rules, labels: [], recs: [] }));
    o.labels.push(label);
    if (o.recs.length < MAX_EXAMPLES) o.recs.push(rec);
  }

  private observations(): Finding[] {
    return [...this.observed].map(([id, o]) => {
      const shown = o.labels.slice(0, MAX_EXAMPLES).join(', ') + (o.labels.length > MAX_EXAMPLES ? `, and ${o.labels.length - MAX_EXAMPLES} more` : '');
      return { id, level: 'observation' as const, text: `${o.text} (${o.labels.length}): ${shown}.`, rules: o.rules, evidence: evidence(shown, o.recs) };
    });
  }

  /**
   * fail when anything was violated; otherwise pass when something was judged,
   * else not-exercised with the concrete reason given.
   */
  outcome(notExercisedReason: string, passNote?: string): InvariantOutcome {
    const findings = this.observed.size ? { findings: this.observations() } : {};
    if (this.violations > 0) {
      return { status: 'fail', checked: this.checked, violations: this.violations, examples: this.examples, reason: `${this.violations} violation(s) in ${this.checked} checked`, ...findings };
    }
    if (this.checked === 0) return { status: 'not-exercised', checked: 0, violations: 0, examples: [], reason: notExercisedReason, ...findings };
    return { status: 'pass', checked: this.checked, violations: 0, examples: [], reason: passNote ?? `${this.checked} checked`, ...findings };
  }
}

/** What `evidence` reads of a record: a whole record, or the part of one `evidenceRec` keeps. */
export type EvidenceSource =
  | (Pick<ExchangeRecord, 'kind' | 'seq' | 'tStart' | 'key' | 'idemKey' | 'bodySnippet'> & {
      error: { request_id?: unknown } | null;
      payment: { id: string } | null;
      refund: { paymentId: string } | null;
      sent: { paymentId?: string };
    })
  | (Pick<WebhookRecord, 'kind' | 'seq' | 'tReceived'> & { payment: { id: string } | null; refund: { paymentId: string } | null });

type Rec = EvidenceSource;

/** An exchange as evidenceRec keeps it (with its times). */
export type KeptExchange = Extract<EvidenceSource, { kind: 'exchange' }> & { tEnd: number };

/**
 * The part of a record `evidence` reads (and the times), for a check that keeps a record past its
 * onRecord to name it later: a few numbers and strings the record already holds, where the record
 * itself holds its whole payment, body and headers (a kilobyte or more). A check that keeps one a
 * hosted payment or an observation (the hosted page's and 3DS's checks) otherwise holds a soak's
 * records.
 */
export function evidenceRec(r: ExchangeRecord): KeptExchange;
export function evidenceRec(r: ExchangeRecord | WebhookRecord): EvidenceSource & { tEnd?: number };
export function evidenceRec(r: ExchangeRecord | WebhookRecord): EvidenceSource & { tEnd?: number } {
  const payment = r.payment ? { id: r.payment.id } : null;
  const refund = r.refund ? { paymentId: r.refund.paymentId } : null;
  if (r.kind === 'webhook') return { kind: 'webhook', seq: r.seq, tReceived: r.tReceived, payment, refund };
  const rid = r.error?.request_id;
  const kept: KeptExchange = {
    kind: 'exchange',
    seq: r.seq,
    tStart: r.tStart,
    tEnd: r.tEnd,
    key: r.key,
    error: typeof rid === 'string' ? { request_id: rid } : null,
    payment,
    refund,
    sent: r.sent.paymentId !== undefined ? { paymentId: r.sent.paymentId } : {},
  };
  if (r.idemKey !== undefined) kept.idemKey = r.idemKey;
  // Trimmed as evidence trims it: what is kept is what a report could show.
  if (r.bodySnippet) kept.bodySnippet = trim(r.bodySnippet);
  return kept;
}

function trim(s: string): string {
  return s.length > BODY_MAX ? s.slice(0, BODY_MAX - 1) + '…' : s;
}

/** Evidence naming the records involved: seqs, times, request ids, keys, idempotency keys, payment ids, trimmed bodies. */
export function evidence(message: string, recs: readonly Rec[], extra: Partial<Evidence> = {}): Evidence {
  const requestIds = new Set<string>(extra.requestIds ?? []);
  const seqs: number[] = [...(extra.seqs ?? [])];
  const times: number[] = [...(extra.times ?? [])];
  const keys = new Set<string>(extra.keys ?? []);
  const idemKeys = new Set<string>(extra.idemKeys ?? []);
  const paymentIds = new Set<string>(extra.paymentIds ?? []);
  const bodies: string[] = [...(extra.bodies ?? [])];
  for (const r of recs) {
    seqs.push(r.seq);
    if (r.kind === 'exchange') {
      times.push(round(r.tStart));
      keys.add(r.key);
      if (r.idemKey !== undefined) idemKeys.add(r.idemKey);
      const rid = r.error?.request_id;
      if (typeof rid === 'string') requestIds.add(rid);
      const pid = r.payment?.id ?? r.refund?.paymentId ?? r.sent.paymentId;
      if (pid) paymentIds.add(pid);
      if (r.bodySnippet) bodies.push(trim(r.bodySnippet));
    } else {
      times.push(round(r.tReceived));
      const pid = r.payment?.id ?? r.refund?.paymentId;
      if (pid) paymentIds.add(pid);
    }
  }
  const e: Evidence = { message };
  if (requestIds.size) e.requestIds = [...requestIds];
  if (seqs.length) e.seqs = seqs;
  if (times.length) e.times = times;
  if (keys.size) e.keys = [...keys];
  if (idemKeys.size) e.idemKeys = [...idemKeys];
  if (paymentIds.size) e.paymentIds = [...paymentIds];
  if (bodies.length) e.bodies = bodies.slice(0, 3);
  return e;
}

function round(t: number): number {
  return Math.round(t * 10) / 10;
}

/** A short, stable rendering of a value for messages. */
export function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 80 ? s.slice(0, 79) + '…' : s;
}
