import { create, err, ex, fault, pay, retrieve, webhook, rate } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const P = 'pay_00000000-0000-4000-8000-000000000001';
const S = 1_700_000_000;

export const ERR_CASES: CaseTable = {
  'error-body-complete': {
    keeps: () => [retrieve(P, { status: 404, error: err('resource_missing') })],
    violates: () => [retrieve(P, { seq: 1, status: 404, error: err('resource_missing', { request_id: 'abc', missing: ['doc_url'] }) })],
    seqs: [1],
    message: /missing doc_url; request_id "abc"/,
  },
  'error-code-table': {
    keeps: () => [retrieve(P, { status: 404, error: err('resource_missing') }), create({ status: 409, error: err('idempotency_key_in_use') })],
    violates: () => [retrieve(P, { seq: 2, status: 400, error: err('resource_missing') })],
    seqs: [2],
    message: /belongs to HTTP 404/,
  },
  'card-error-code': {
    keeps: () => [create({ status: 422, error: err('card_declined', { decline_code: 'do_not_honor' }) })],
    violates: () => [create({ seq: 3, status: 400, error: err('parameter_invalid', { decline_code: 'do_not_honor' }) })],
    seqs: [3],
  },
  'server-errors': {
    keeps: () => [retrieve(P, { status: 503, error: err('service_unavailable') })],
    violates: () => [retrieve(P, { seq: 4, status: 502, error: err('internal_error', { type: 'api_error' }) })],
    seqs: [4],
  },
  'json-and-integers': {
    keeps: () => [retrieve(P)],
    violates: () => [retrieve(P, { seq: 5, p: { amount: 10.5 }, leaks: ['non-integer amount at amount'] })],
    seqs: [5],
  },
};

export const TEST_CASES: CaseTable = {
  'sandbox-decline-async': {
    keeps: () => [create({ id: P, sent: { cardOutcome: 'do_not_honor' } }), retrieve(P, { t: 100, p: { status: 'failed', failureCode: 'do_not_honor' } })],
    violates: () => [create({ seq: 1, status: 422, error: err('card_declined', { decline_code: 'do_not_honor' }), sent: { cardOutcome: 'do_not_honor' } })],
    seqs: [1],
    message: /declined synchronously/,
  },
  'sandbox-accepts-card-details': {
    keeps: () => [create({ id: P, sent: { cardOutcome: 'succeeds', cardBrand: 'amex', cardMeta: { expMonth: 1, expYear: 2040, cvcLength: 4, holderName: 'Zoë Ü' } } })],
    violates: () => [create({ seq: 2, status: 400, error: err('parameter_invalid', { param: 'card.cvc' }), sent: { cardOutcome: 'succeeds', cardBrand: 'visa', cardMeta: { expMonth: 12, expYear: 2039, cvcLength: 3, holderName: 'x' } } })],
    seqs: [2],
  },
  'hosted-test-cards': {
    keeps: () => [create({ op: 'create_hpp', id: P, p: { status: 'requires_action' } }), ex({ op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: P, cardOutcome: 'insufficient_funds' } }), retrieve(P, { t: 200, p: { status: 'failed', failureCode: 'insufficient_funds' } })],
    violates: () => [create({ op: 'create_hpp', id: P, p: { status: 'requires_action' } }), ex({ seq: 2, op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: P, cardOutcome: 'succeeds' } }), retrieve(P, { seq: 3, t: 200, p: { status: 'failed', failureCode: 'generic_decline' } })],
    seqs: [2, 3],
  },
};

const authed = (seq: number, t: number, o: Parameters<typeof retrieve>[1] = {}) => retrieve(P, { seq, t, rate: rate(S + 60, 3), ...o });

export const FT_SEC_CASES: CaseTable = {
  'created-payments-retrievable': {
    keeps: () => [create({ id: P }), retrieve(P, { t: 100 })],
    violates: () => [create({ seq: 1, id: P }), retrieve(P, { seq: 2, t: 100, status: 404, error: err('resource_missing') })],
    seqs: [2, 1],
  },
  'fault-responses-well-formed': {
    keeps: () => [fault({ tStart: 0, tEnd: 1000 }), create({ id: P, t: 100 }), create({ t: 200, status: 503, error: err('service_unavailable') })],
    violates: () => [fault({ tStart: 0, tEnd: 1000 }), create({ seq: 2, t: 100, status: 500, error: err('internal_error') })],
    seqs: [2],
  },
  'behaviour-under-faults': {
    keeps: () => [fault({ tStart: 0, tEnd: 1000 }), authed(1, 100), ex({ t: 200, op: 'raw', status: 401, error: err('invalid_api_key'), sent: { auth: 'unknown-key' } })],
    violates: () => [fault({ tStart: 0, tEnd: 1000 }), authed(1, 100), ex({ seq: 3, t: 200, op: 'raw', status: 503, error: err('service_unavailable'), sent: { auth: 'unknown-key' } })],
    seqs: [3],
  },
  'no-secret-echo': {
    keeps: () => [retrieve(P), webhook({ payment: pay({ id: P }) })],
    violates: () => [retrieve(P, { seq: 4, status: 401, error: err('invalid_api_key', { message: 'bad key …aaaa' }), leaks: ['api key m1/test/…aaaa echoed'] })],
    seqs: [4],
  },
};
