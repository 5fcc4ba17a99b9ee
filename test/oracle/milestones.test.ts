// event-matches-type's milestones of refunded payments, kept by payment row in paged columns: the
// same staleness found as the plain rule (a frontier list per payment, a list of final refunds),
// for long frontiers and refunds shown final as well as the common one-look case.
import { describe, expect, it } from 'vitest';
import type { CanonicalPayment, CanonicalRefund } from '../../src/spec/index.ts';
import { Milestones, type Shown } from '../../src/oracle/invariants/event-matches-type.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';

type Frontier = number[];
function raise(fr: Frontier | null, v: number, t: number, seq: number): Frontier {
  if (fr === null) return [v, t, seq];
  for (let i = 0; i < fr.length; i += 3) if (fr[i] >= v && fr[i + 1] <= t) return fr;
  for (let i = fr.length - 3; i >= 0; i -= 3) if (fr[i] <= v && fr[i + 1] >= t) fr.splice(i, 3);
  let i = fr.length;
  while (i > 0 && fr[i - 2] > t) i -= 3;
  fr.splice(i, 0, v, t, seq);
  return fr;
}
function shownBefore(fr: Frontier | null, cutoff: number): { v: number; seq: number } | null {
  if (fr === null) return null;
  let best = -1;
  for (let i = 0; i < fr.length; i += 3) if (fr[i + 1] < cutoff) best = i;
  return best < 0 ? null : { v: fr[best], seq: fr[best + 2] };
}

/** The rule stated plainly, as the invariant kept it before its columns. */
class Model {
  private readonly byPayment = new Map<string, { refunded: Frontier | null; refunds: Frontier | null; refundedAt?: { t: number; seq: number }; final: { id: string; t: number; seq: number }[] }>();
  private of(id: string) {
    let m = this.byPayment.get(id);
    if (!m) this.byPayment.set(id, (m = { refunded: null, refunds: null, refundedAt: undefined, final: [] }));
    return m;
  }
  payment(p: CanonicalPayment, t: number, seq: number): void {
    const refunded = typeof p.amountRefunded === 'number' && p.amountRefunded > 0 ? p.amountRefunded : 0;
    const count = p.refunds?.length ?? 0;
    const final = p.refunds?.some((r) => r.status !== 'pending') ?? false;
    if (!refunded && !count && p.refundedAt === null && !final) return;
    const m = this.of(p.id);
    if (refunded && p.presentation === 'B') m.refunded = raise(m.refunded, refunded, t, seq);
    if (count) m.refunds = raise(m.refunds, count, t, seq);
    if (p.refundedAt !== null && (m.refundedAt === undefined || t < m.refundedAt.t)) m.refundedAt = { t, seq };
    for (const r of p.refunds ?? []) if (r.id) this.final(m, r, t, seq);
  }
  refund(paymentId: string, r: CanonicalRefund, t: number, seq: number): void {
    if (!paymentId || !r.id || r.status === 'pending') return;
    this.final(this.of(paymentId), r, t, seq);
  }
  private final(m: { final: { id: string; t: number; seq: number }[] }, r: CanonicalRefund, t: number, seq: number): void {
    if (r.status === 'pending') return;
    const known = m.final.find((x) => x.id === r.id);
    if (!known) m.final.push({ id: r.id, t, seq });
    else if (t < known.t) (known.t = t), (known.seq = seq);
  }
  longestFrontier(): number {
    let n = 0;
    for (const m of this.byPayment.values()) n = Math.max(n, m.refunded?.length ?? 0, m.refunds?.length ?? 0);
    return n;
  }
  staleness(p: Shown, cutoff: number) {
    const m = this.byPayment.get(p.id);
    if (!m) return null;
    const refunded = shownBefore(m.refunded, cutoff);
    if (refunded && p.refunded !== null && p.refunded < refunded.v) return { shows: `refunded amount ${p.refunded}`, seen: `an answer had shown ${refunded.v}`, seq: refunded.seq };
    const count = shownBefore(m.refunds, cutoff);
    if (count && p.refunds !== null && p.refunds < count.v) return { shows: `${p.refunds} refund(s)`, seen: `an answer had shown ${count.v}`, seq: count.seq };
    if (m.refundedAt && m.refundedAt.t < cutoff && p.refundedAtUnset) return { shows: 'refunded_at null', seen: 'an answer had shown it set', seq: m.refundedAt.seq };
    for (const id of p.pending) {
      const fin = m.final.find((x) => x.id === id);
      if (fin && fin.t < cutoff) return { shows: `refund ${id} pending`, seen: 'an answer had shown it final', seq: fin.seq };
    }
    return null;
  }
}

function run(tiny: boolean): void {
  const saved = { ...pageSettings };
  if (tiny) Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
  let seen: Milestones;
  try {
    seen = new Milestones(new PaymentRows());
  } finally {
    Object.assign(pageSettings, saved);
  }
  const model = new Model();
  let x = 11;
  const next = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), (x >>> 8) % n);
  const statuses = ['pending', 'succeeded', 'failed'] as const;
  let found = 0;
  for (let seq = 0; seq < 4000; seq++) {
    const id = `pay_${next(40)}`;
    // Answers may end out of order, and show less than before (a stale or partial look).
    const t = seq + next(60);
    if (next(5) === 0) {
      const r = { id: `re_${next(4)}`, paymentId: id, status: statuses[next(3)], amount: 100 } as unknown as CanonicalRefund;
      seen.refund(id, r, t, seq);
      model.refund(id, r, t, seq);
    } else {
      const n = next(4);
      const refunds = Array.from({ length: n }, (_, i) => ({ id: next(6) === 0 ? '' : `re_${i}`, paymentId: id, status: statuses[next(3)], amount: 100 }));
      const p = {
        id,
        presentation: next(3) === 0 ? 'A' : 'B',
        // Up to seven levels: frontiers of one look, of a few (a slot of their own) and longer ones (a Map).
        amountRefunded: next(4) === 0 ? null : next(8) * 100,
        refunds: next(5) === 0 ? null : refunds,
        refundedAt: next(3) === 0 ? t : null,
      } as unknown as CanonicalPayment;
      seen.payment(p, t, seq);
      model.payment(p, t, seq);
    }
    const shown: Shown = { id: `pay_${next(40)}`, refunded: next(4) === 0 ? null : next(8) * 100, refunds: next(4) === 0 ? null : next(4), refundedAtUnset: next(2) === 0, pending: next(2) === 0 ? [`re_${next(4)}`, `re_${next(4)}`] : [] };
    const cutoff = seq + next(80) - 20;
    const want = model.staleness(shown, cutoff);
    expect(seen.staleness(shown, cutoff)).toEqual(want);
    if (want) found++;
  }
  // Frontiers past the four triples a slot holds were made too.
  expect(model.longestFrontier()).toBeGreaterThan(12);
  // Both stale and current snapshots were judged.
  expect(found).toBeGreaterThan(200);
  expect(found).toBeLessThan(3800);
}

describe('Milestones', () => {
  it('finds what the plain rule finds', () => run(false));
  it('does the same with pages of two rows on disk', () => run(true));
});
