import type { Invariant } from '../types.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../lib/findings.ts';
import { SpillColumns } from '../lib/spill.ts';
import { ValueCodes } from '../lib/paged-column.ts';
import { sortRows } from '../lib/columns.ts';
import { observedPayment } from '../lib/observations.ts';
import { abandonedEnding } from './three-ds-outcome.ts';

/** An observation's facts, as bits of one number (`flags`). */
const ABANDONED = 1;
const THREE_DS = 2;
const HOSTED_REASON = 4;
const REQUIRES_ACTION = 8;

/**
 * SM-5: after the hosted page is submitted with a 3DS card, the payment stays
 * requires_action (reason three_d_secure where the presentation has a reason) until
 * the challenge is done; ending meanwhile as an abandoned challenge may (expired, canceled, or
 * failed with three_d_secure_timeout) is allowed. Until the
 * issuer's answer is in, the hosted_payment_page reason may still show; never after the
 * 3DS reason was shown.
 */
const invariant: Invariant = {
  id: 'hosted-3ds-stays-requires-action',
  title: 'A hosted page submitted with a 3DS card stays requires_action with next_action.reason three_d_secure',
  rules: ['SM-5'],
  create(ctx) {
    const f = new Findings();
    const submitted = new Map<string, { tEnd: number; rec: EvidenceSource }>();
    const completion = new Map<string, number>();
    /**
     * Every observation of a hosted payment, as numbers on disk (lib/spill.ts): its payment's row,
     * seq and times, its facts as `flags`, its wire status and reason as codes, and its place in
     * `suspects` (-1: none kept). A list of observations per payment with each record held grew a
     * kilobyte or more an observation through a soak.
     */
    const seen = new SpillColumns(['row', 'seq', 'tStart', 'tEnd', 'flags', 'wire', 'reason', 'suspect'] as const);
    /** Wire statuses and reasons (a reason of null as none). */
    const texts = new ValueCodes<string>();
    /**
     * The evidence of observations that may be violations: not requires_action with the 3DS reason
     * nor an abandoned ending, and made after the payment's page was submitted with the 3DS card.
     * Records come in the order they completed (k6's, in the order they started), so an
     * observation that started after the submit ended comes after it; the others (a hosted page
     * polled before it is submitted: most of a soak's) can never be judged, and keep no evidence.
     * Were a history out of that order, such a violation would still count, named by its seq.
     */
    const suspects: EvidenceSource[] = [];
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && rec.sent.paymentId) {
          const id = rec.sent.paymentId;
          if (rec.op === 'submit_hpp' && rec.sent.cardOutcome === 'three_ds_challenge' && rec.status > 0 && rec.status < 400 && !submitted.has(id)) submitted.set(id, { tEnd: rec.tEnd, rec: evidenceRec(rec) });
          if (rec.op === 'complete_3ds') completion.set(id, Math.min(completion.get(id) ?? Infinity, rec.tStart));
        }
        const o = observedPayment(rec);
        if (!o || o.kind !== 'exchange') return;
        const facts = ctx.ledger.payments.get(o.payment.id);
        if (!facts?.hosted) return;
        const p = o.payment;
        const reason = p.nextAction?.reason ?? null;
        const flags =
          (abandonedEnding(p.status, p.failureCode ?? null) ? ABANDONED : 0) |
          (reason === 'three_d_secure' || (p.presentation === 'B' && reason === null) ? THREE_DS : 0) |
          (reason === 'hosted_payment_page' ? HOSTED_REASON : 0) |
          (p.status === 'requires_action' ? REQUIRES_ACTION : 0);
        const harmless = (flags & ABANDONED) !== 0 || (flags & (REQUIRES_ACTION | THREE_DS)) === (REQUIRES_ACTION | THREE_DS);
        const s = harmless ? undefined : submitted.get(p.id);
        const kept = s !== undefined && o.tStart > s.tEnd;
        if (kept) suspects.push(evidenceRec(o));
        seen.pushValues(facts.row, o.seq, o.tStart, o.tEnd, flags, texts.codeOf(p.wireStatus), texts.codeOf(reason ?? undefined), kept ? suspects.length - 1 : -1);
      },
      finish() {
        if (submitted.size === 0) return f.outcome('no hosted page was submitted with the 3DS card and then looked at before the challenge');
        // Every observation, by payment row and then by start (ties in arrival order), read back once.
        const n = seen.length;
        const names = seen.names;
        const cols = Object.fromEntries(names.map((name) => [name, new Float64Array(n)])) as Record<(typeof names)[number], Float64Array>;
        let at = 0;
        for (const chunk of seen.chunks()) {
          for (const name of names) cols[name].set(chunk.cols[seen.index(name)].subarray(0, chunk.n), at);
          at += chunk.n;
        }
        const order = new Uint32Array(n);
        for (let i = 0; i < n; i++) order[i] = i;
        // By start (ties in arrival order), then by payment keeping that order: one key of both,
        // as sortRows breaks ties by arrival, not by the order given.
        sortRows(order, cols.tStart);
        const key = new Float64Array(n);
        for (let k = 0; k < n; k++) key[order[k]] = cols.row[order[k]] * n + k;
        sortRows(order, key);
        const rows = ctx.ledger.paymentRows;
        for (const [id, s] of submitted) {
          const row = rows.find(id);
          if (row === undefined) continue;
          const until = completion.get(id) ?? Infinity;
          // When the 3DS reason was first shown (by an answer that ended before this one started).
          let threeDsSeenBy = Infinity;
          for (let k = firstOf(order, cols.row, row); k < n && cols.row[order[k]] === row; k++) {
            const i = order[k];
            const tStart = cols.tStart[i];
            const tEnd = cols.tEnd[i];
            const flags = cols.flags[i];
            if (tStart <= s.tEnd || tEnd >= until) continue;
            f.check();
            if (flags & ABANDONED) continue;
            const threeDs = (flags & THREE_DS) !== 0;
            // The issuer's answer may take a moment after the form is submitted (processing is
            // asynchronous), so the hosted-page reason may linger; it must not come back once the
            // 3DS reason was shown.
            const stillDeciding = (flags & HOSTED_REASON) !== 0 && tStart < threeDsSeenBy;
            if (threeDs) threeDsSeenBy = Math.min(threeDsSeenBy, tEnd);
            if (!(flags & REQUIRES_ACTION) || !(threeDs || stillDeciding)) {
              const message = `hosted payment ${id} submitted with the 3DS card shows ${texts.valueOf(cols.wire[i])} with next_action.reason ${show(texts.valueOf(cols.reason[i]) ?? null)} before the challenge was done`;
              const o = cols.suspect[i] >= 0 ? suspects[cols.suspect[i]] : undefined;
              f.violation(o ? evidence(message, [s.rec, o]) : evidence(message, [s.rec], { seqs: [cols.seq[i]], times: [Math.round(tStart * 10) / 10], paymentIds: [id] }));
            }
          }
        }
        return f.outcome('no hosted page was submitted with the 3DS card and then looked at before the challenge');
      },
    };
  },
};

/** The first place in `order` (sorted by `rows`) whose row is `row`, or where it would be. */
function firstOf(order: Uint32Array, rows: Float64Array, row: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[order[mid]] < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
export default invariant;
