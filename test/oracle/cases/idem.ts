import { create, err, ex, list, refundReq, K } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const A = 'pay_00000000-0000-4000-8000-00000000000a';
const B = 'pay_00000000-0000-4000-8000-00000000000b';
const C = 'pay_00000000-0000-4000-8000-00000000000c';
const D = 'pay_00000000-0000-4000-8000-00000000000d';
const NONCE = '6f1c2a9e-3b7d-4e21-9c0a-5d8e7f6a1b2c';
const NONCE2 = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const conflict = (code: string) => ({ status: 409, error: err(code), payment: null });

export const IDEM_CASES: CaseTable = {
  'idem-key-required': {
    keeps: () => [ex({ op: 'raw', status: 400, error: err('parameter_missing'), sent: { idemVariant: 'missing', path: '/v1/payments', method: 'POST' } })],
    violates: () => [create({ seq: 3, id: A, idemKey: undefined, sent: { idemVariant: 'missing' } })],
    seqs: [3],
    message: /answered 201/,
  },
  'idem-key-length': {
    keeps: () => [ex({ op: 'create', status: 400, error: err('parameter_invalid'), sent: { idemVariant: 'oversized' } })],
    violates: () => [create({ seq: 4, id: A, sent: { idemVariant: 'oversized' } })],
    seqs: [4],
  },
  'idem-replay': {
    keeps: () => [create({ idemKey: 'k', id: A }), create({ idemKey: 'k', id: A, t: 100 })],
    violates: () => [create({ seq: 1, idemKey: 'k', id: A }), create({ seq: 2, idemKey: 'k', id: B, t: 100 })],
    seqs: [1, 2],
    message: /but the original answer was 201/,
  },
  'idem-different-body': {
    keeps: () => [create({ idemKey: 'k', id: A }), create({ idemKey: 'k', bodyDigest: 'd2', t: 100, ...conflict('idempotency_key_in_use') }), create({ idemKey: 'k', bodyDigest: 'd3', t: 200, ...conflict('idempotency_key_reused') })],
    violates: () => [create({ seq: 1, idemKey: 'k', id: A }), create({ seq: 2, idemKey: 'k', bodyDigest: 'd2', t: 100, ...conflict('duplicate_request') })],
    seqs: [1, 2],
  },
  'idem-in-flight': {
    keeps: () => [create({ idemKey: 'k', id: A, dur: 500 }), create({ idemKey: 'k', t: 100, ...conflict('idempotency_key_in_use') }), create({ idemKey: 'k', id: A, t: 700 })],
    violates: () => [create({ seq: 1, idemKey: 'k', id: A, dur: 50 }), create({ seq: 2, idemKey: 'k', t: 100, ...conflict('idempotency_key_in_use') })],
    seqs: [1, 2],
    message: /no request with this key was in flight/,
  },
  'idem-single-object': {
    keeps: () => [create({ idemKey: 'k', id: A, dur: 500 }), create({ idemKey: 'k', id: A, t: 100, dur: 500 })],
    violates: () => [create({ seq: 1, idemKey: 'k', id: A, dur: 500 }), create({ seq: 2, idemKey: 'k', id: B, t: 100, dur: 500 })],
    seqs: [1, 2],
    message: /2 objects/,
  },
  'idem-no-ghost-object': {
    // A race: two requests, one key, one body with a nonce; one payment, listed once.
    keeps: () => [
      create({ idemKey: 'k', id: A, dur: 500, sent: { description: `race ${NONCE}` }, p: { description: `race ${NONCE}` } }),
      create({ idemKey: 'k', id: A, t: 100, dur: 500, sent: { description: `race ${NONCE}` }, p: { description: `race ${NONCE}` } }),
      // The same nonce sent by two logical requests (two API keys) is not judged.
      create({ idemKey: 'k2', id: C, sent: { description: `scope ${NONCE2}` } }),
      create({ key: K.test2, idemKey: 'k2', id: D, sent: { description: `scope ${NONCE2}` } }),
      list([D, C, B, A], { t: 1000, descriptions: [`scope ${NONCE2}`, `scope ${NONCE2}`, 'paystorm mixed', `race ${NONCE}`] }),
    ],
    // Both callers were answered with A, but the service made B too: only the list shows it.
    violates: () => [
      create({ seq: 1, idemKey: 'k', id: A, dur: 500, sent: { description: `race ${NONCE}` } }),
      create({ seq: 2, idemKey: 'k', id: A, t: 100, dur: 500, sent: { description: `race ${NONCE}` } }),
      list([B, A], { seq: 3, t: 1000, descriptions: [`race ${NONCE}`, `race ${NONCE}`] }),
    ],
    seqs: [1, 2, 3],
    message: /left 2 payments carrying its description.*answered with pay_\S+a, so pay_\S+b is a payment no answer showed/,
  },
  'idem-errors-not-kept': {
    keeps: () => [create({ idemKey: 'k', status: 400, error: err('parameter_invalid') }), create({ idemKey: 'k', id: A, t: 100 })],
    violates: () => [
      create({ seq: 1, idemKey: 'k', status: 422, error: err('card_declined', { decline_code: 'do_not_honor', request_id: 'req_1' }) }),
      create({ seq: 2, idemKey: 'k', t: 100, status: 422, error: err('card_declined', { decline_code: 'do_not_honor', request_id: 'req_1' }) }),
    ],
    seqs: [1, 2],
    message: /same request_id/,
  },
  'idem-scoped-per-key': {
    keeps: () => [create({ idemKey: 'k', id: A }), create({ key: K.test2, idemKey: 'k', id: B, t: 100 })],
    violates: () => [create({ seq: 1, idemKey: 'k', id: A }), create({ seq: 2, key: K.test2, idemKey: 'k', id: A, t: 100 })],
    seqs: [1, 2],
  },
  'idem-scoped-per-operation': {
    keeps: () => [create({ idemKey: 'k', id: A }), create({ op: 'create_hpp', idemKey: 'k', id: B, t: 100 })],
    violates: () => [create({ seq: 1, idemKey: 'k', id: A }), create({ seq: 2, op: 'create_hpp', idemKey: 'k', t: 100, ...conflict('idempotency_key_reused') })],
    seqs: [1, 2],
    message: /first use/,
  },
  'merchant-reference-no-dedup': {
    keeps: () => [create({ idemKey: 'k1', id: A, sent: { merchantReference: 1234567890 } }), create({ idemKey: 'k2', id: B, t: 100, sent: { merchantReference: 1234567890 } })],
    violates: () => [create({ seq: 1, idemKey: 'k1', id: A, sent: { merchantReference: 1234567890 } }), create({ seq: 2, idemKey: 'k2', id: A, t: 100, sent: { merchantReference: 1234567890 } })],
    seqs: [1, 2],
  },
  'duplicate-request-no-object': {
    keeps: () => [create({ idemKey: 'k', id: A }), create({ idemKey: 'k', t: 100, ...conflict('duplicate_request') })],
    violates: () => [create({ seq: 1, idemKey: 'k', t: 100, ...conflict('duplicate_request') })],
    seqs: [1],
  },
  'refund-idempotency': {
    keeps: () => [refundReq(A, { idemKey: 'r', r: { id: 're_1' } }), refundReq(A, { idemKey: 'r', t: 100, r: { id: 're_1' } })],
    violates: () => [refundReq(A, { seq: 1, idemKey: 'r', r: { id: 're_1' } }), refundReq(A, { seq: 2, op: 'refund_create', idemKey: 'r', t: 100, r: { id: 're_2' } })],
    seqs: [1, 2],
  },
  'retry-no-double-charge': {
    keeps: () => [create({ idemKey: 'k', status: 0 }), create({ idemKey: 'k', id: A, t: 100, attempt: 1 }), list([A], { t: 300 })],
    violates: () => [create({ idemKey: 'k', status: 0 }), create({ idemKey: 'k', id: A, t: 100, attempt: 1 }), list([A, B], { seq: 9, t: 300, created: [1_700_000_001, 1_700_000_001] })],
    seqs: [9],
    message: /a retry created a second payment/,
  },
};
