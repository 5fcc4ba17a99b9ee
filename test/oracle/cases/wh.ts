import { create, endRec, pay, refundObj, refundReq, retrieve, webhook, K } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const P = 'pay_00000000-0000-4000-8000-000000000001';
const ok = pay({ id: P, status: 'succeeded' });

export const WH_CASES: CaseTable = {
  'webhook-signature': {
    keeps: () => [webhook(), webhook({ signature: 'stale' })],
    violates: () => [webhook({ seq: 1, signature: 'mismatch' })],
    seqs: [1],
  },
  'webhook-timestamp-fresh': {
    keeps: () => [webhook()],
    violates: () => [webhook({ seq: 2, t: 1_700_000_000 - 400 })],
    seqs: [2],
  },
  'webhook-envelope': {
    keeps: () => [webhook(), webhook({ type: 'refund.succeeded', payment: null, refund: refundObj({ status: 'succeeded' }) })],
    violates: () => [webhook({ seq: 3, eventId: 'ev_1', type: 'refund.succeeded', refund: null })],
    seqs: [3],
    message: /id "ev_1", no data.refund/,
  },
  'terminal-payment-event': {
    keeps: () => [create({ id: P }), retrieve(P, { t: 1000, p: { status: 'succeeded' } }), webhook({ tReceived: 1500, payment: ok }), endRec({ tEnd: 60_000 })],
    violates: () => [create({ seq: 1, id: P }), retrieve(P, { seq: 2, t: 1000, p: { status: 'succeeded' } }), webhook({ tReceived: 1500, type: 'payment.failed', payment: pay({ id: P, status: 'failed' }) }), endRec({ tEnd: 60_000 })],
    seqs: [1, 2],
  },
  'terminal-refund-event': {
    keeps: () => [create({ id: P }), refundReq(P, { t: 100, r: { id: 're_1', status: 'succeeded' } }), webhook({ type: 'refund.succeeded', payment: null, refund: refundObj({ id: 're_1', paymentId: P, status: 'succeeded' }) }), endRec({ tEnd: 60_000 })],
    violates: () => [create({ id: P }), refundReq(P, { t: 100, r: { id: 're_1', status: 'succeeded' } }), webhook({ seq: 3, type: 'refund.succeeded', payment: null, refund: refundObj({ id: 're_1', paymentId: '', status: 'succeeded' }) }), endRec({ tEnd: 60_000 })],
    seqs: [3],
    message: /payment_id ""/,
  },
  'no-event-for-non-terminal': {
    keeps: () => [webhook()],
    violates: () => [webhook({ seq: 4, type: 'payment.requires_action', payment: pay({ status: 'requires_action' }) })],
    seqs: [4],
  },
  'event-matches-type': {
    keeps: () => [webhook()],
    violates: () => [webhook({ seq: 5, type: 'payment.succeeded', payment: pay({ status: 'pending' }) })],
    seqs: [5],
  },
  'retries-keep-event-id': {
    // A second event about the same payment in between does not make the retry's id wrong.
    keeps: () => [webhook({ eventId: 'evt_1', answered: 500 }), webhook({ eventId: 'evt_9', tReceived: 2000 }), webhook({ eventId: 'evt_1', tReceived: 3000 })],
    violates: () => [webhook({ seq: 6, eventId: 'evt_1', answered: 500 }), webhook({ seq: 7, eventId: 'evt_2', tReceived: 3000 })],
    seqs: [6, 7],
  },
  'failed-delivery-retried': {
    keeps: () => [webhook({ eventId: 'evt_1', answered: 500, tReceived: 1000 }), webhook({ eventId: 'evt_1', answered: 0, tReceived: 2000 }), webhook({ eventId: 'evt_1', tReceived: 5000 })],
    violates: () => [webhook({ eventId: 'evt_1', answered: 500, tReceived: 1000 }), webhook({ seq: 8, eventId: 'evt_1', answered: 500, tReceived: 5000 }), webhook({ seq: 9, eventId: 'evt_1', tReceived: 6000 })],
    seqs: [8, 9],
    message: /shrank/,
  },
  'test-events-test-endpoints': {
    keeps: () => [create({ id: P }), webhook({ payment: ok })],
    violates: () => [create({ id: P }), create({ key: K.live, id: 'pay_live', p: { livemode: true } }), webhook({ seq: 10, payment: ok, livemode: true })],
    seqs: [10],
  },
};
