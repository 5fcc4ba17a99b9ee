import type { Evidence, Finding } from '../../spec/index.ts';
import type { ExchangeRecord } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { isAuthenticatedAnswer } from '../lib/exchange.ts';
import { Findings, MAX_EXAMPLES, evidence, show } from '../lib/findings.ts';
import { resetToleranceMs, windowMsOf } from '../lib/rate.ts';
import { SpillColumns } from '../lib/spill.ts';
import type { ServerClockEstimate } from '../../history/server-clock.ts';

/**
 * The few records furthest in one direction, kept while streaming (a million records, five kept),
 * and every value, on disk (lib/spill.ts): how many are beyond the limit is known only once the
 * server-clock offset is final.
 */
class Extremes {
  private readonly values = new SpillColumns(['v'] as const);
  private readonly kept: { v: number; rec: ExchangeRecord }[] = [];
  /** `sign` 1 keeps the largest values, -1 the smallest. */
  constructor(private readonly sign: 1 | -1) {}
  add(v: number, rec: ExchangeRecord): void {
    this.values.pushValues(v);
    const k = this.kept;
    if (k.length === MAX_EXAMPLES && (v - k[k.length - 1].v) * this.sign <= 0) return;
    k.push({ v, rec });
    k.sort((a, b) => (b.v - a.v) * this.sign);
    if (k.length > MAX_EXAMPLES) k.pop();
  }
  /** Values beyond `limit` (in the kept direction), and the kept records among them. */
  beyond(limit: number): { count: number; recs: { v: number; rec: ExchangeRecord }[] } {
    let count = 0;
    for (const { cols, n } of this.values.chunks()) {
      const v = cols[0];
      for (let i = 0; i < n; i++) if ((v[i] - limit) * this.sign > 0) count++;
    }
    return { count, recs: this.kept.filter((x) => (x.v - limit) * this.sign > 0) };
  }
}

/**
 * RL-6. X-RateLimit-Reset is Unix seconds and, when sent, not in the past (1 s for
 * whole-second rounding, plus clock skew for a remote target) and no further than
 * one window ahead (a milliseconds value would be). An idempotent replay that repeats the
 * original answer's headers is not judged (the spec leaves open whether headers are replayed).
 * Judged in the server's time: our send
 * and receipt times plus the clock offset the Date headers show (ledger.serverClock), which
 * it reports as the `server-clock-offset` finding.
 */
const invariant: Invariant = {
  id: 'rate-reset-value',
  title: 'X-RateLimit-Reset is integer Unix seconds, not in the past and at most one window ahead',
  rules: ['RL-6'],
  create(ctx) {
    const f = new Findings();
    const W = windowMsOf(ctx);
    // reset - our send time (smallest: most in the past) and reset - our receipt (largest: furthest ahead).
    const past = new Extremes(-1);
    const ahead = new Extremes(1);
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isAuthenticatedAnswer(rec) || !rec.rate) return;
        const { reset, raw } = rec.rate;
        if (reset === null) {
          if (raw?.reset !== undefined) {
            f.check();
            f.violation(evidence(`X-RateLimit-Reset ${show(raw.reset)} is not integer Unix seconds`, [rec]));
          }
          return;
        }
        // A replay carrying the original answer's headers (ledger.isReplayedRate) was true when first sent.
        if (ctx.ledger.isReplayedRate(rec.seq)) return;
        f.check();
        // A merged shard's times are known on the merged clock only to within its clock slack.
        const slack = rec.clockSlackMs ?? 0;
        past.add(reset * 1000 - ctx.epochMs(rec.tStart - slack), rec);
        ahead.add(reset * 1000 - ctx.epochMs(rec.tEnd + slack), rec);
      },
      finish() {
        const clock = ctx.ledger.serverClock.estimate();
        const offset = clock?.offsetMs ?? 0;
        const tol = resetToleranceMs(ctx);
        const inServerTime = clock && Math.abs(offset) >= 500 ? ` (in the server's time: its clock is ${secs(offset)} s off ours)` : '';
        const late = past.beyond(offset - tol);
        for (let i = 0; i < late.count; i++) {
          const x = late.recs[i];
          f.violation(x ? evidence(`X-RateLimit-Reset ${x.rec.rate!.reset} was ${secs(offset - x.v)} s in the past when sent${inServerTime}`, [x.rec]) : placeholder('X-RateLimit-Reset in the past when sent'));
        }
        const far = ahead.beyond(offset + W + tol);
        for (let i = 0; i < far.count; i++) {
          const x = far.recs[i];
          f.violation(x ? evidence(`X-RateLimit-Reset ${x.rec.rate!.reset} is ${secs(x.v - offset)} s ahead, more than one ${W / 1000} s window (not Unix seconds?)${inServerTime}`, [x.rec]) : placeholder('X-RateLimit-Reset more than one window ahead'));
        }
        const out = f.outcome('no authenticated answer carried X-RateLimit-Reset');
        if (clock) out.findings = [clockFinding(clock)];
        return out;
      },
    };
  },
};

function secs(ms: number): number {
  return Math.round(ms / 100) / 10;
}

/** Counted beyond the examples kept: Findings keeps only the first few anyway. */
function placeholder(message: string): Evidence {
  return { message };
}

/** Beyond this the offset is reported as a warning: a staging host this far off breaks clients that trust its times. */
const CLOCK_OFFSET_WARN_MS = 1000;

export function clockFinding(c: ServerClockEstimate): Finding {
  const off = secs(c.offsetMs);
  const pm = Math.max(0.1, Math.ceil(c.uncertaintyMs / 100) / 10);
  const beyond = Math.abs(c.offsetMs) - c.uncertaintyMs > CLOCK_OFFSET_WARN_MS;
  const side = c.offsetMs >= 0 ? 'ahead of' : 'behind';
  const text = c.consistent
    ? `The server's clock is ${Math.abs(off)} s ${side} paystorm's (±${pm} s, from the Date headers of ${c.samples} answers); rate-limit and timestamp rules were judged in the server's time.`
    : `The Date headers of ${c.samples} answers do not agree with one clock (several nodes or a clock step): about ${off} s from paystorm's, ±${pm} s; rate-limit and timestamp rules were judged with that much slack.`;
  return {
    id: 'server-clock-offset',
    level: beyond || !c.consistent ? 'warning' : 'info',
    text,
    rules: ['RL-2', 'RL-6', 'RL-8'],
    evidence: { message: `offset bounds set by exchanges ${c.lowerSeq} and ${c.upperSeq}`, seqs: [c.lowerSeq, c.upperSeq] },
  };
}
export default invariant;
