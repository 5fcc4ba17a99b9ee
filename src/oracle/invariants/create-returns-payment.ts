import { PAYMENT_ID_B_PATTERN, PAYMENT_ID_PREFIX } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** PAY-1: a create answers 201 with a Payment: `pay_` id; presentation B: `pay_` + UUID and object "payment". */
const invariant: Invariant = {
  id: 'create-returns-payment',
  title: 'A create returns 201 with a Payment whose id starts pay_ (B: pay_ + UUID, object payment)',
  rules: ['PAY-1'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || (rec.op !== 'create' && rec.op !== 'create_hpp') || !is2xx(rec.status)) return;
        f.check();
        const p = rec.payment;
        const problems: string[] = [];
        if (rec.status !== 201) problems.push(`status ${rec.status}, not 201`);
        if (!p) problems.push('the body is not a Payment');
        else {
          if (!p.id.startsWith(PAYMENT_ID_PREFIX)) problems.push(`id ${p.id} does not start ${PAYMENT_ID_PREFIX}`);
          else if (p.presentation === 'B' && !PAYMENT_ID_B_PATTERN.test(p.id)) problems.push(`id ${p.id} is not pay_ + UUID`);
          if (p.presentation === 'B' && rec.shapeProblems?.some((s) => s.startsWith('object:'))) problems.push('object is not "payment"');
        }
        if (problems.length) f.violation(evidence(`create answered: ${problems.join('; ')}`, [rec]));
      },
      finish: () => f.outcome('no create was answered 2xx'),
    };
  },
};
export default invariant;
