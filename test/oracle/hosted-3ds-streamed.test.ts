// SM-5 (hosted-3ds-stays-requires-action) kept every observation of every hosted payment, each
// with its whole record, to the end: a kilobyte or more an observation through a soak. It now keeps
// numbers on disk, and the evidence of an observation only where it may be a violation. This
// compares it, on random hosted flows, with the check it replaced (a list of observations a
// payment, sorted by start at the end): the same count, the same checks, the same evidence.
import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, HistoryRecord } from '../../src/history/index.ts';
import { evidence, MAX_EXAMPLES, show } from '../../src/oracle/lib/findings.ts';
import { seededRandom } from '../../src/spec/random.ts';
import { abandonedEnding } from '../../src/oracle/invariants/three-ds-outcome.ts';
import type { Evidence } from '../../src/spec/index.ts';
import { create, ex, judgeOne, resetSeq, retrieve, withPagesOnDisk } from './fixtures.ts';

const STATUSES = ['requires_action', 'requires_action', 'requires_action', 'pending', 'succeeded', 'failed', 'expired', 'canceled'] as const;
const REASONS = ['three_d_secure', 'three_d_secure', 'hosted_payment_page', null] as const;

/** Hosted payments (some Direct API ones among them), submitted with the 3DS card or not, looked at out of order. */
function history(seed: number): HistoryRecord[] {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  resetSeq();
  const out: ExchangeRecord[] = [];
  const payments = 4 + Math.floor(r() * 6);
  for (let p = 0; p < payments; p++) {
    const id = `pay_${seed}_${p}`;
    const presentation = r() < 0.5 ? 'A' : 'B';
    const hosted = r() < 0.85;
    const t0 = Math.floor(r() * 50);
    out.push(create({ op: hosted ? 'create_hpp' : 'create', id, t: t0, p: { presentation, status: 'requires_action', hosted, nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp' } } }));
    if (r() < 0.8) out.push(ex({ op: 'submit_hpp', status: pick([303, 200, 400, 0]), t: t0 + 20 + Math.floor(r() * 20), sent: { paymentId: id, cardOutcome: r() < 0.8 ? 'three_ds_challenge' : 'succeeds' } }));
    const looks = Math.floor(r() * 9);
    for (let k = 0; k < looks; k++) {
      const status = pick(STATUSES);
      const reason = status === 'requires_action' ? pick(REASONS) : null;
      // Starts often tied, answers overlapping: the order by start, ties in arrival order, matters.
      const t = t0 + 10 * Math.floor(r() * 12);
      out.push(retrieve(id, { t, dur: 1 + Math.floor(r() * 30), p: { presentation, status, hosted, failureCode: status === 'failed' ? pick(['three_d_secure_timeout', 'generic_decline']) : null, nextAction: reason ? { type: 'redirect', reason, redirectUrl: 'https://x/3ds' } : null } }));
    }
    if (r() < 0.5) out.push(ex({ op: 'complete_3ds', status: 303, t: t0 + 40 + Math.floor(r() * 100), sent: { paymentId: id, threeDsResult: 'success' } }));
  }
  // Records are written as they complete.
  return out.sort((a, b) => a.tEnd - b.tEnd || a.seq - b.seq);
}

/** The check as it was: every observation of a hosted payment kept whole, sorted by start at the end. */
function replaced(records: HistoryRecord[]): { violations: number; checked: number; examples: Evidence[] } {
  const hosted = new Set<string>();
  const submitted = new Map<string, { tEnd: number; rec: ExchangeRecord }>();
  const completion = new Map<string, number>();
  const obs = new Map<string, { o: ExchangeRecord; status: string; failureCode: string | null; reason: string | null; presentation: 'A' | 'B' }[]>();
  for (const rec of records) {
    if (rec.kind !== 'exchange') continue;
    if (rec.op === 'create_hpp' && rec.status >= 200 && rec.status < 300 && rec.payment) hosted.add(rec.payment.id);
    if (rec.sent.paymentId) {
      const id = rec.sent.paymentId;
      if (rec.op === 'submit_hpp' && rec.sent.cardOutcome === 'three_ds_challenge' && rec.status > 0 && rec.status < 400 && !submitted.has(id)) submitted.set(id, { tEnd: rec.tEnd, rec });
      if (rec.op === 'complete_3ds') completion.set(id, Math.min(completion.get(id) ?? Infinity, rec.tStart));
    }
    if (!rec.payment || !hosted.has(rec.payment.id)) continue;
    const p = rec.payment;
    let list = obs.get(p.id);
    if (!list) obs.set(p.id, (list = []));
    list.push({ o: rec, status: p.status, failureCode: p.failureCode ?? null, reason: p.nextAction?.reason ?? null, presentation: p.presentation });
  }
  let violations = 0;
  let checked = 0;
  const examples: Evidence[] = [];
  for (const [id, s] of submitted) {
    const until = completion.get(id) ?? Infinity;
    let threeDsSeenBy = Infinity;
    for (const x of (obs.get(id) ?? []).sort((a, b) => a.o.tStart - b.o.tStart)) {
      if (x.o.tStart <= s.tEnd || x.o.tEnd >= until) continue;
      checked++;
      if (abandonedEnding(x.status, x.failureCode)) continue;
      const threeDs = x.reason === 'three_d_secure' || (x.presentation === 'B' && x.reason === null);
      const stillDeciding = x.reason === 'hosted_payment_page' && x.o.tStart < threeDsSeenBy;
      if (threeDs) threeDsSeenBy = Math.min(threeDsSeenBy, x.o.tEnd);
      if (x.status !== 'requires_action' || !(threeDs || stillDeciding)) {
        violations++;
        if (examples.length < MAX_EXAMPLES) examples.push(evidence(`hosted payment ${id} submitted with the 3DS card shows ${x.o.payment!.wireStatus} with next_action.reason ${show(x.reason)} before the challenge was done`, [s.rec, x.o]));
      }
    }
  }
  return { violations, checked, examples };
}

describe('hosted-3ds-stays-requires-action, observations kept as numbers', () => {
  it('judges random hosted flows as the check that kept every observation whole did', async () => {
    let failing = 0;
    let judged = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const records = history(seed);
      const want = replaced(records);
      // Chunks of three rows: most observations are read back from the scratch file.
      const got = await withPagesOnDisk(() => judgeOne('hosted-3ds-stays-requires-action', records), 3);
      expect({ seed, violations: got.violations, checked: got.checked, examples: got.examples }).toEqual({ seed, ...want });
      if (want.violations > 0) failing++;
      if (want.checked > 0) judged++;
    }
    // The flows reach both outcomes often.
    expect(failing).toBeGreaterThan(20);
    expect(judged - failing).toBeGreaterThan(5);
  }, 120_000);

  it('counts the same violations in a history out of completion order, naming the same records', async () => {
    let failing = 0;
    for (let seed = 1; seed <= 80; seed++) {
      // The submits moved last: the observations that follow a submit come before it, so none kept
      // its evidence when seen (the creates stay first: a payment is known from its create).
      const h = history(seed) as ExchangeRecord[];
      const rank = (r: ExchangeRecord) => (r.op === 'create' || r.op === 'create_hpp' ? 0 : r.op === 'submit_hpp' ? 2 : 1);
      const records = h.map((r, i) => [r, i] as const).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([r]) => r);
      const want = replaced(records);
      const got = await judgeOne('hosted-3ds-stays-requires-action', records);
      const sorted = (xs: number[] | undefined) => [...(xs ?? [])].sort((a, b) => a - b);
      expect({ seed, violations: got.violations, checked: got.checked, seqs: got.examples.map((e) => sorted(e.seqs)), messages: got.examples.map((e) => e.message) }).toEqual({
        seed,
        violations: want.violations,
        checked: want.checked,
        seqs: want.examples.map((e) => sorted(e.seqs)),
        messages: want.examples.map((e) => e.message),
      });
      if (want.violations > 0) failing++;
    }
    expect(failing).toBeGreaterThan(5);
  });
});
