import { create, err, refundObj, refundReq, retrieve } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const P = 'pay_00000000-0000-4000-8000-000000000001';
const succeeded = (t: number, o: object = {}, seq?: number) => retrieve(P, { t, ...(seq ? { seq } : {}), p: { status: 'succeeded', ...o } });
const notAllowed = (message = 'Refund validation failed [amount_exceeds_refundable]: too much') => ({ status: 422, error: err('action_not_allowed', { message }) });
/** A refund path that is not served: 404 (no route) or 405. */
const unserved = (status = 404) => ({ status, error: err('resource_missing') });
const badAmount = (amount: unknown) => ({ amount, badInput: { case: 'refund/amount-zero', expectStatus: 400, expectCode: 'parameter_invalid', expectParam: 'amount', rule: 'REF-4' } });

export const REF_CASES: CaseTable = {
  'refund-accepted': {
    keeps: () => [
      create({ id: P }),
      succeeded(100),
      refundReq(P, { t: 200, r: { id: 're_1' } }),
      succeeded(300, { refunds: [refundObj({ id: 're_1', status: 'succeeded' })], amountRefunded: 100 }),
    ],
    violates: () => [create({ id: P }), succeeded(100), refundReq(P, { seq: 3, t: 200, r: { id: 're_1' } }), succeeded(300, { refunds: [] }, 4)],
    seqs: [4, 3],
    message: /missing from payment/,
  },
  'refunded-amount-sum': {
    keeps: () => [succeeded(0, { amountRefunded: 100, refunds: [refundObj({ status: 'succeeded' }), refundObj({ id: 're_2', status: 'pending' })] })],
    violates: () => [succeeded(0, { amountRefunded: 200, refunds: [refundObj({ status: 'succeeded' }), refundObj({ id: 're_2', status: 'pending' })] }, 5)],
    seqs: [5],
  },
  'refunds-within-amount': {
    keeps: () => [create({ id: P }), succeeded(100), refundReq(P, { t: 200, sent: { amount: 600 }, r: { id: 're_1', amount: 600, status: 'succeeded' } }), refundReq(P, { t: 205, sent: { amount: 600 }, ...notAllowed() })],
    violates: () => [
      create({ id: P }),
      succeeded(100),
      refundReq(P, { seq: 3, t: 200, dur: 50, sent: { amount: 600 }, r: { id: 're_1', amount: 600, status: 'succeeded' } }),
      refundReq(P, { seq: 4, t: 210, dur: 50, sent: { amount: 600 }, r: { id: 're_2', amount: 600, status: 'succeeded' } }),
    ],
    seqs: [3, 4],
    message: /adding up to 1200/,
  },
  'over-refund-refused': {
    keeps: () => [create({ id: P }), succeeded(100), refundReq(P, { t: 200, sent: { amount: 5000 }, ...notAllowed() })],
    violates: () => [create({ id: P }), succeeded(100), refundReq(P, { seq: 3, t: 200, sent: { amount: 5000 }, ...notAllowed('Refund validation failed [too much') })],
    seqs: [3],
    message: /does not follow/,
  },
  'refund-requires-succeeded': {
    keeps: () => [create({ id: P }), retrieve(P, { t: 100, p: { status: 'failed', failureCode: 'do_not_honor' } }), refundReq(P, { t: 200, ...notAllowed('not refundable') })],
    violates: () => [create({ id: P }), refundReq(P, { seq: 2, t: 100, r: { id: 're_1' } }), retrieve(P, { seq: 3, t: 300 })],
    seqs: [2, 3],
  },
  'refund-path-served': {
    // POST /v1/refunds is not served (404 for an own payment); the payment-scoped path is.
    keeps: () => [create({ id: P }), succeeded(100), refundReq(P, { t: 200, op: 'refund_create', ...unserved() }), refundReq(P, { t: 300, r: { id: 're_1' } })],
    // A 405 (not served) that still left a refund on a payment no refund was accepted for.
    violates: () => [
      create({ id: P }),
      refundReq(P, { seq: 2, t: 100, op: 'refund_create', ...unserved(405) }),
      refundReq(P, { seq: 3, t: 110, ...notAllowed() }),
      retrieve(P, { seq: 4, t: 200, p: { status: 'requires_action', refunds: [refundObj({ id: 're_9' })] } }),
    ],
    seqs: [2],
    message: /not served/,
  },
  'refund-settles': {
    keeps: () => [
      create({ id: P }),
      succeeded(100),
      refundReq(P, { t: 200, r: { id: 're_1', status: 'pending' } }),
      succeeded(1_000, { refunds: [refundObj({ id: 're_1', status: 'succeeded' })], amountRefunded: 100 }),
    ],
    // Still pending 6 s after it was made (bound 5 s), with no fault.
    violates: () => [create({ id: P }), succeeded(100), refundReq(P, { seq: 3, t: 200, r: { id: 're_1', status: 'pending' } }), succeeded(6_500, { refunds: [refundObj({ id: 're_1' })] }, 4)],
    seqs: [3, 4],
    message: /still pending 6\.3 s/,
  },
  'bad-refund-no-effect': {
    keeps: () => [create({ id: P }), succeeded(100), refundReq(P, { t: 200, sent: badAmount(0), status: 400, error: err('parameter_invalid') }), succeeded(300)],
    // Refused 400, yet counted: the payment shows money refunded afterwards.
    violates: () => [
      create({ id: P }),
      succeeded(100),
      refundReq(P, { seq: 3, t: 200, sent: badAmount('ten'), status: 400, error: err('parameter_invalid') }),
      succeeded(300, { amountRefunded: 1000, refundedAt: 1_700_000_100, refunds: [refundObj({ id: 're_1', amount: 1000, status: 'succeeded' })] }, 4),
    ],
    seqs: [3, 4],
    message: /after refund probes with bad amounts \("ten" -> 400\)/,
  },
  'refunded-at-when-full': {
    keeps: () => [succeeded(0, { amountRefunded: 1000, refundedAt: 1_700_000_100 }), succeeded(10, { amountRefunded: 10 })],
    violates: () => [succeeded(0, { amountRefunded: 1000, refundedAt: null }, 6)],
    seqs: [6],
  },
};
