import { leakKind } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/** PAY-9: no answer or webhook holds a full card number or a CVC, and card.last4 is the last four digits sent. */
const invariant: Invariant = {
  id: 'no-card-data-returned',
  title: 'Nothing returned contains a full card number or a CVC; card.last4 equals the last four digits sent',
  rules: ['PAY-9'],
  create(ctx) {
    const f = new Findings();
    return {
      // Webhook payloads carry payments too (data.payment is the payment as GET returns it).
      kinds: ['exchange', 'webhook'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' && rec.kind !== 'webhook') return;
        const sentCard = rec.kind === 'exchange' && rec.sent.cardLast4 !== undefined;
        const o = observedPayment(rec);
        if (sentCard || o?.payment.card) f.check();
        for (const l of rec.leaks ?? []) {
          const k = leakKind(l);
          if (k === 'card_number' || k === 'cvc') {
            f.check();
            f.violation(evidence(`card data returned: ${l}`, [rec]));
          }
        }
        const last4 = o?.payment.card?.last4;
        if (!o || !last4) return;
        const facts = ctx.ledger.payments.get(o.payment.id);
        const sent = (rec.kind === 'exchange' ? rec.sent.cardLast4 : undefined) ?? facts?.cardLast4;
        if (sent && last4 !== sent) f.violation(evidence(`payment ${o.payment.id} shows card.last4 ${last4}, but the card sent ends ${sent}`, [rec]));
      },
      finish: () => f.outcome('no card was sent and no payment showed a card'),
    };
  },
};
export default invariant;
