import { create, ex, fault, retrieve } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const P = 'pay_00000000-0000-4000-8000-000000000001';
const threeDs = { status: 'requires_action' as const, nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://x/3ds' } };

export const SM_CASES: CaseTable = {
  'status-transitions': {
    keeps: () => [create({ id: P }), retrieve(P, { t: 100, p: threeDs }), retrieve(P, { t: 200, p: { status: 'succeeded' } })],
    violates: () => [create({ id: P }), retrieve(P, { seq: 2, t: 100, p: threeDs }), retrieve(P, { seq: 3, t: 200, p: { status: 'pending' } })],
    seqs: [2, 3],
    message: /requires_action -> pending/,
  },
  'terminal-is-final': {
    keeps: () => [create({ id: P }), retrieve(P, { t: 100, p: { status: 'succeeded' } }), retrieve(P, { t: 200, p: { status: 'succeeded' } }),
      // In flight together: either order is possible, so no conclusion.
      retrieve(P, { t: 300, dur: 100, p: { status: 'succeeded' } })],
    violates: () => [create({ id: P }), retrieve(P, { seq: 2, t: 100, p: { status: 'succeeded' } }), retrieve(P, { seq: 3, t: 200, p: { status: 'failed', failureCode: 'x' } })],
    seqs: [2, 3],
  },
  'sandbox-card-outcome': {
    keeps: () => [
      create({ id: P, sent: { cardOutcome: 'insufficient_funds' } }),
      retrieve(P, { t: 100, p: { status: 'failed', failureCode: 'insufficient_funds' } }),
      create({ id: 'pay_3ds', sent: { cardOutcome: 'three_ds_challenge' } }),
      retrieve('pay_3ds', { t: 100, p: threeDs }),
    ],
    violates: () => [create({ seq: 1, id: P, sent: { cardOutcome: 'succeeds' } }), retrieve(P, { seq: 2, t: 100, p: { status: 'failed', failureCode: 'generic_decline' } })],
    seqs: [1, 2],
    message: /ended failed/,
  },
  'three-ds-outcome': {
    keeps: () => [
      create({ id: P, p: threeDs }),
      ex({ op: 'complete_3ds', status: 303, t: 100, sent: { paymentId: P, threeDsResult: 'fail' } }),
      retrieve(P, { t: 200, p: { status: 'failed', failureCode: 'three_d_secure_failed' } }),
    ],
    violates: () => [
      create({ id: P, p: threeDs }),
      ex({ seq: 2, op: 'complete_3ds', status: 303, t: 100, sent: { paymentId: P, threeDsResult: 'fail' } }),
      retrieve(P, { seq: 3, t: 200, p: { status: 'failed', failureCode: 'generic_decline' } }),
    ],
    seqs: [2, 3],
  },
  'hosted-3ds-stays-requires-action': {
    keeps: () => [
      create({ op: 'create_hpp', id: P, p: { status: 'requires_action', nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp' } } }),
      ex({ op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: P, cardOutcome: 'three_ds_challenge' } }),
      retrieve(P, { t: 200, p: threeDs }),
    ],
    violates: () => [
      create({ op: 'create_hpp', id: P, p: { status: 'requires_action', nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp' } } }),
      ex({ seq: 2, op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: P, cardOutcome: 'three_ds_challenge' } }),
      retrieve(P, { seq: 3, t: 200, p: { status: 'succeeded' } }),
    ],
    seqs: [2, 3],
  },
  'settles-within-bound': {
    keeps: () => [create({ id: P }), retrieve(P, { t: 3000 }), retrieve(P, { t: 4500, p: { status: 'succeeded' } }),
      // Pending long after create, but a fault covered its life: FT-2's to judge.
      create({ id: 'pay_f', t: 10_000 }), fault({ tStart: 11_000, tEnd: 12_000 }), retrieve('pay_f', { t: 20_000 })],
    violates: () => [create({ seq: 1, id: P }), retrieve(P, { seq: 2, t: 6000 })],
    seqs: [1, 2],
  },
  'settles-after-heal': {
    keeps: () => [create({ id: P }), fault({ tStart: 1000, tEnd: 8000 }), retrieve(P, { t: 7000 }), retrieve(P, { t: 10_000, p: { status: 'succeeded' } })],
    violates: () => [create({ seq: 1, id: P }), fault({ tStart: 1000, tEnd: 8000 }), retrieve(P, { seq: 3, t: 14_000 })],
    seqs: [1, 3],
    message: /after the faults healed/,
  },
};
