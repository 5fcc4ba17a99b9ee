import type { Invariant } from '../types.ts';
import { errorCode, errorType, is2xx, isCreate, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

const DECLINE_CARDS = new Set(['do_not_honor', 'insufficient_funds']);

/**
 * PAY-7: a decline is not an HTTP error. A declining card gets 201 (and the payment later
 * fails), or a synchronous 422 card_error card_declined with a decline_code. Any 422
 * card_error on a create has code card_declined.
 */
const invariant: Invariant = {
  id: 'decline-not-http-error',
  title: 'A decline is 201 and later failed, or a synchronous 422 card_error card_declined with a decline_code',
  rules: ['PAY-7'],
  create(ctx) {
    const f = new Findings();
    /** A decline card declines on the sandbox (test keys); how a live key refuses test cards is AUTH-7's, in no set form. */
    const testMode = (key: string) => ctx.keys.get(key)?.mode === 'test';
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isCreate(rec) || rec.sent.badInput) return;
        const declining = testMode(rec.key) && DECLINE_CARDS.has(rec.sent.cardOutcome ?? '');
        const cardError = rec.status === 422 && errorType(rec) === 'card_error';
        if (!declining && !cardError) return;
        if (isInconclusive(rec) || [401, 403, 409].includes(rec.status)) return;
        f.check();
        if (is2xx(rec.status)) return;
        if (rec.status === 422) {
          const dc = rec.error?.decline_code;
          if (errorType(rec) !== 'card_error' || errorCode(rec) !== 'card_declined' || (declining && (typeof dc !== 'string' || !dc))) {
            f.violation(evidence(`declined create answered 422 ${show(errorCode(rec))} / ${show(errorType(rec))} with decline_code ${show(dc)} (expected card_error, card_declined and a decline_code)`, [rec]));
          }
          return;
        }
        f.violation(evidence(`create with the "${rec.sent.cardOutcome}" card answered ${rec.status} ${show(errorCode(rec))}: a decline is 201 or 422 card_declined`, [rec]));
      },
      finish() {
        // Declining cards must not end succeeded.
        for (const p of ctx.ledger.payments.values()) {
          if (!testMode(p.key) || !DECLINE_CARDS.has(p.cardOutcome ?? '') || !ctx.ledger.paymentSpans.seen(p.id, 'succeeded')) continue;
          const at = ctx.ledger.paymentSpans.firstEnd(p.id, 'succeeded');
          f.violation({ message: `payment ${p.id} with the "${p.cardOutcome}" card was seen succeeded`, seqs: [p.seq, at.seq], paymentIds: [p.id], keys: [p.key] });
        }
        return f.outcome('no create used a declining card or was declined synchronously');
      },
    };
  },
};
export default invariant;
