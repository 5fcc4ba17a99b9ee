import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';
import { abandonedEnding } from './three-ds-outcome.ts';

interface Obs {
  status: string;
  failureCode: string | null;
  wire: string;
  reason: string | null;
  presentation: 'A' | 'B';
  tStart: number;
  tEnd: number;
  rec: Parameters<typeof evidence>[1][number];
}

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
    const submitted = new Map<string, { tEnd: number; rec: Parameters<typeof evidence>[1][number] }>();
    const completion = new Map<string, number>();
    const obs = new Map<string, Obs[]>();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && rec.sent.paymentId) {
          const id = rec.sent.paymentId;
          if (rec.op === 'submit_hpp' && rec.sent.cardOutcome === 'three_ds_challenge' && rec.status > 0 && rec.status < 400 && !submitted.has(id)) submitted.set(id, { tEnd: rec.tEnd, rec });
          if (rec.op === 'complete_3ds') completion.set(id, Math.min(completion.get(id) ?? Infinity, rec.tStart));
        }
        const o = observedPayment(rec);
        if (!o || o.kind !== 'exchange' || !ctx.ledger.payments.get(o.payment.id)?.hosted) return;
        let list = obs.get(o.payment.id);
        if (!list) obs.set(o.payment.id, (list = []));
        list.push({ status: o.payment.status, failureCode: o.payment.failureCode ?? null, wire: o.payment.wireStatus, reason: o.payment.nextAction?.reason ?? null, presentation: o.payment.presentation, tStart: o.tStart, tEnd: o.tEnd, rec: o });
      },
      finish() {
        for (const [id, s] of submitted) {
          const until = completion.get(id) ?? Infinity;
          // When the 3DS reason was first shown (by an answer that ended before this one started).
          let threeDsSeenBy = Infinity;
          for (const o of (obs.get(id) ?? []).sort((x, y) => x.tStart - y.tStart)) {
            if (o.tStart <= s.tEnd || o.tEnd >= until) continue;
            f.check();
            if (abandonedEnding(o.status, o.failureCode)) continue;
            const threeDs = o.reason === 'three_d_secure' || (o.presentation === 'B' && o.reason === null);
            // The issuer's answer may take a moment after the form is submitted (processing is
            // asynchronous), so the hosted-page reason may linger; it must not come back once the
            // 3DS reason was shown.
            const stillDeciding = o.reason === 'hosted_payment_page' && o.tStart < threeDsSeenBy;
            if (threeDs) threeDsSeenBy = Math.min(threeDsSeenBy, o.tEnd);
            if (o.status !== 'requires_action' || !(threeDs || stillDeciding)) {
              f.violation(evidence(`hosted payment ${id} submitted with the 3DS card shows ${o.wire} with next_action.reason ${show(o.reason)} before the challenge was done`, [s.rec, o.rec]));
            }
          }
        }
        return f.outcome('no hosted page was submitted with the 3DS card and then looked at before the challenge');
      },
    };
  },
};
export default invariant;
