import { create, err, ex, list, retrieve, K, rate } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const P = 'pay_00000000-0000-4000-8000-0000000000aa';
const unauth = (seq: number, auth: 'missing' | 'malformed' | 'basic' | 'bad-prefix' | 'unknown-key', status: number, code = 'invalid_api_key') =>
  ex({ seq, op: 'raw', status, error: err(code), sent: { auth, path: '/v1/payments', method: 'GET' } });

export const AUTH_CASES: CaseTable = {
  'auth-malformed-header': {
    keeps: () => [unauth(1, 'missing', 401), unauth(2, 'basic', 401)],
    violates: () => [unauth(1, 'missing', 401), unauth(2, 'basic', 400, 'parameter_invalid')],
    seqs: [2],
    message: /expected 401 invalid_api_key/,
  },
  'auth-unknown-prefix': {
    keeps: () => [unauth(1, 'bad-prefix', 401)],
    violates: () => [unauth(3, 'bad-prefix', 403, 'not_permitted')],
    seqs: [3],
  },
  'auth-unknown-key': {
    keeps: () => [unauth(1, 'unknown-key', 401)],
    violates: () => [unauth(4, 'unknown-key', 503, 'service_unavailable')],
    seqs: [4],
  },
  'no-rate-headers-on-401': {
    keeps: () => [unauth(1, 'missing', 401)],
    violates: () => [{ ...unauth(5, 'missing', 401), rate: rate(1_700_000_060, 4) }],
    seqs: [5],
    message: /X-RateLimit-Limit/,
  },
  'livemode-matches-key': {
    keeps: () => [create({ id: P }), create({ key: K.live, id: 'pay_live', p: { livemode: true } }), list([P], { livemodes: [false] })],
    violates: () => [create({ seq: 6, key: K.live, id: 'pay_live', p: { livemode: false } })],
    seqs: [6],
  },
  'forbidden-is-not-permitted': {
    keeps: () => [ex({ op: 'create', status: 403, error: err('not_permitted') })],
    violates: () => [ex({ seq: 7, op: 'create', status: 403, error: err('not_permitted', { type: 'invalid_request_error' }) })],
    seqs: [7],
  },
  'live-key-rejects-test-cards': {
    keeps: () => [
      create({ key: K.live, id: 'pay_live', p: { livemode: true }, sent: { cardOutcome: 'succeeds' } }),
      retrieve('pay_live', { key: K.live, t: 100, p: { livemode: true, status: 'failed', failureCode: 'generic_decline' } }),
    ],
    violates: () => [
      create({ seq: 8, key: K.live, id: 'pay_live', p: { livemode: true }, sent: { cardOutcome: 'succeeds' } }),
      retrieve('pay_live', { seq: 9, key: K.live, t: 100, p: { livemode: true, status: 'succeeded' } }),
    ],
    seqs: [8, 9],
  },
  'mode-isolation': {
    keeps: () => [create({ key: K.live, id: 'pay_live', p: { livemode: true } }), retrieve('pay_live', { t: 100, status: 404, error: err('resource_missing') })],
    violates: () => [create({ key: K.live, id: 'pay_live', p: { livemode: true } }), retrieve('pay_live', { seq: 10, t: 100, p: { livemode: true } })],
    seqs: [10],
  },
  'merchant-isolation': {
    keeps: () => [create({ key: K.other, id: P }), retrieve(P, { t: 100, status: 404, error: err('resource_missing') }), list([], { t: 200 })],
    violates: () => [create({ seq: 11, key: K.other, id: P }), list([P], { seq: 12, t: 200 })],
    seqs: [12, 11],
  },
};
