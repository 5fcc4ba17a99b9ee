/**
 * FT-4 "fails open" later: a create answered 201 pending while a hard fault surely stopped the
 * upstream, whose payment is then seen succeeded before that window surely ended (the processor
 * was unreachable from its creation to its success). Judged by fault-responses-well-formed beside
 * its own case in misc.ts (FT_SEC_CASES), so this table is run by test/oracle/fail-open.test.ts.
 */
import { create, fault, retrieve } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const P = 'pay_00000000-0000-4000-8000-0000000000f1';
const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 };
/** `down` from 1000 to 9100, surely acting from 1050 until removal was asked at 9000. */
const down = () => fault({ tStart: 1000, tEnd: 9100, tApplied: 1050, tRemoving: 9000 });

export const FAIL_OPEN_CASES: CaseTable = {
  'fault-responses-well-formed': {
    // Seen succeeded only after the sure window ended: the processor may have answered once it was back.
    keeps: () => [down(), create({ id: P, t: 2000, sent: { cardOutcome: 'succeeds' } }), retrieve(P, { t: 8995, p: { status: 'pending' } }), retrieve(P, { t: 9200, p: { status: 'succeeded', card } })],
    violates: () => [down(), create({ seq: 2, id: P, t: 2000, sent: { cardOutcome: 'succeeds' } }), retrieve(P, { seq: 3, t: 3000, p: { status: 'succeeded', card } }), retrieve(P, { t: 12_000, p: { status: 'succeeded', card } })],
    seqs: [2, 3],
    message: /seen succeeded while the upstream was still surely down/,
  },
};
