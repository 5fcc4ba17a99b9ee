import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** PAY-15: retrieving a succeeded payment shows the masked card object (at least its last four digits). */
const invariant: Invariant = {
  id: 'succeeded-has-card',
  title: 'A succeeded payment carries the masked card object on retrieval',
  rules: ['PAY-15'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['retrieve'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'retrieve' || !is2xx(rec.status) || rec.payment?.status !== 'succeeded') return;
        f.check();
        const card = rec.payment.card;
        if (!card || typeof card.last4 !== 'string' || !/^\d{4}$/.test(card.last4)) f.violation(evidence(`succeeded payment ${rec.payment.id} retrieved with card ${show(card)}`, [rec]));
      },
      finish: () => f.outcome('no succeeded payment was retrieved'),
    };
  },
};
export default invariant;
