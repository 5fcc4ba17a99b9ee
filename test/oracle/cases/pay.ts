import { create, err, ex, pay, retrieve, webhook } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const P = 'pay_00000000-0000-4000-8000-000000000001';
const bad = (c: string, expectStatus: number, expectCode: string, expectParam: string | null) => ({ case: c, expectStatus, expectCode, expectParam });

export const PAY_CASES: CaseTable = {
  'create-returns-payment': {
    keeps: () => [
      create({ id: P }),
      // Refusals of a create the record does not prove valid: a card field, no param, a bad-input probe, a currency the key never had accepted,
      // an amount in another currency or a currency on another path than the key had accepted, a hosted description (no maximum stated).
      create({ status: 400, error: err('parameter_invalid', { param: 'card.number' }) }),
      create({ status: 400, error: err('parameter_invalid') }),
      create({ status: 400, error: err('parameter_invalid', { param: 'currency' }), sent: { currency: 'XXQ', badInput: bad('currency-not-iso', 400, 'parameter_invalid', 'currency') } }),
      create({ status: 400, error: err('parameter_invalid', { param: 'currency' }), sent: { currency: 'JPY' } }),
      create({ status: 400, error: err('parameter_invalid', { param: 'amount' }), sent: { amount: 500, currency: 'GBP' } }),
      create({ op: 'create_hpp', status: 400, error: err('parameter_invalid', { param: 'currency' }), sent: { currency: 'EUR' } }),
      create({ op: 'create_hpp', status: 400, error: err('parameter_invalid', { param: 'description' }), sent: { currency: 'EUR', description: 'd'.repeat(300) } }),
    ],
    violates: () => [create({ seq: 2, status: 200, id: 'pay_notauuid' }), create({ seq: 3, status: 400, error: err('parameter_invalid', { param: 'currency' }) })],
    seqs: [2],
    message: /status 200, not 201; id pay_notauuid is not pay_ \+ UUID/,
  },
  'amount-minimum': {
    keeps: () => [ex({ op: 'create', status: 400, error: err('parameter_invalid', { param: 'amount' }), sent: { amount: 0 } })],
    violates: () => [ex({ seq: 3, op: 'create', status: 400, error: err('parameter_invalid', { param: 'currency' }), sent: { amount: -5 } })],
    seqs: [3],
    message: /expected 400 parameter_invalid naming amount/,
  },
  'missing-field-named': {
    keeps: () => [ex({ op: 'create', status: 400, error: err('parameter_invalid', { param: 'card[exp_month]' }), sent: { badInput: bad('missing card.exp_month', 400, 'parameter_invalid', 'card.exp_month') } })],
    violates: () => [ex({ seq: 4, op: 'create', status: 400, error: err('parameter_missing', { param: 'card' }), sent: { badInput: bad('missing card.exp_month', 400, 'parameter_invalid', 'card.exp_month') } })],
    seqs: [4],
  },
  'non-json-body': {
    keeps: () => [ex({ op: 'raw', status: 400, error: err('invalid_request_body'), sent: { path: '/v1/payments', method: 'POST', badInput: bad('not json', 400, 'invalid_request_body', null) } })],
    violates: () => [ex({ seq: 5, op: 'raw', status: 500, error: err('internal_error'), sent: { path: '/v1/payments', method: 'POST', badInput: bad('not json', 400, 'invalid_request_body', null) } }), ex({ seq: 6, op: 'raw', status: 422, error: err('action_not_allowed'), sent: { path: '/v1/payments', method: 'POST', badInput: bad('not json', 400, 'invalid_request_body', null) } })],
    seqs: [6],
  },
  'field-constraints': {
    keeps: () => [
      ex({ op: 'create', status: 400, error: err('parameter_invalid', { param: 'currency' }), sent: { badInput: bad('currency XXX', 400, 'parameter_invalid', 'currency') } }),
      create({ sent: { badInput: bad('metadata key over 40 chars (discouraged only)', 201, '', null) } }),
    ],
    violates: () => [create({ seq: 7, sent: { badInput: bad('description over 500 chars', 400, 'parameter_invalid', 'description') } })],
    seqs: [7],
  },
  'create-status-allowed': {
    keeps: () => [create({ id: P }), create({ id: 'pay_a', p: { presentation: 'A', status: 'succeeded', wireStatus: 'SUCCEEDED' } })],
    violates: () => [create({ seq: 8, id: P, p: { status: 'succeeded' } })],
    seqs: [8],
  },
  'decline-not-http-error': {
    keeps: () => [create({ id: P, sent: { cardOutcome: 'do_not_honor' } }), ex({ op: 'create', status: 422, error: err('card_declined', { decline_code: 'insufficient_funds' }), sent: { cardOutcome: 'insufficient_funds' } })],
    violates: () => [ex({ seq: 9, op: 'create', status: 402, error: err('card_declined'), sent: { cardOutcome: 'do_not_honor' } })],
    seqs: [9],
  },
  'payment-echoes-input': {
    keeps: () => [
      create({ id: P, sent: { amount: 1000, currency: 'eur', description: 'x', metadata: { a: '1', b: '2' } }, p: { description: 'x', metadata: { b: '2', a: '1' } } }),
      retrieve(P, { t: 100, p: { description: 'x', metadata: { a: '1', b: '2' } } }),
    ],
    violates: () => [create({ seq: 1, id: P, sent: { amount: 1000, currency: 'EUR' } }), retrieve(P, { seq: 2, t: 100, p: { amount: 999 } })],
    seqs: [2, 1],
    message: /amount 999/,
  },
  'no-card-data-returned': {
    keeps: () => [create({ id: P, sent: { cardLast4: '4242' } }), retrieve(P, { t: 100, p: { status: 'succeeded', card: { brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2030 } } })],
    violates: () => [create({ id: P, sent: { cardLast4: '4242' } }), retrieve(P, { seq: 3, t: 100, leaks: ['full number of card …4242 echoed'] })],
    seqs: [3],
  },
  'amount-refundable-consistent': {
    keeps: () => [retrieve('pay_a', { p: { presentation: 'A', status: 'succeeded', amountRefundable: 1000 } }), retrieve('pay_b', { p: { presentation: 'A', status: 'pending', amountRefundable: 0 } })],
    violates: () => [retrieve('pay_a', { seq: 4, p: { presentation: 'A', status: 'pending', amountRefundable: 1000 } })],
    seqs: [4],
  },
  'next-action-iff-requires-action': {
    keeps: () => [retrieve(P, { p: { status: 'requires_action', nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://x/3ds' } } })],
    violates: () => [retrieve(P, { seq: 5, p: { status: 'requires_action', nextAction: null } })],
    seqs: [5],
  },
  'hosted-create-shape': {
    keeps: () => [create({ op: 'create_hpp', id: P, p: { status: 'requires_action', card: null, redirectUrl: 'https://x/hpp', nextAction: { type: 'redirect', reason: null, redirectUrl: 'https://x/hpp' } } })],
    violates: () => [create({ seq: 6, op: 'create_hpp', id: P, p: { status: 'pending', redirectUrl: 'https://x/hpp' } })],
    seqs: [6],
    message: /payment status pending/,
  },
  'redirect-url-by-integration': {
    keeps: () => [create({ id: P }), create({ op: 'create_hpp', id: 'pay_h', p: { status: 'requires_action', redirectUrl: 'https://x/hpp' } })],
    violates: () => [create({ id: P }), retrieve(P, { seq: 7, t: 100, p: { redirectUrl: 'https://x/hpp' } })],
    seqs: [7],
  },
  'status-timestamps': {
    keeps: () => [retrieve(P, { p: { status: 'succeeded' } }), retrieve(P, { p: { status: 'failed', failureCode: 'do_not_honor' } })],
    violates: () => [retrieve(P, { seq: 8, p: { status: 'succeeded', succeededAt: null } })],
    seqs: [8],
  },
  'succeeded-has-card': {
    keeps: () => [retrieve(P, { p: { status: 'succeeded', card: { brand: null, last4: '4242', exp_month: null, exp_year: null } } })],
    violates: () => [retrieve(P, { seq: 9, p: { status: 'succeeded', card: null } })],
    seqs: [9],
  },
  'failure-reason': {
    keeps: () => [create({ id: P, sent: { cardOutcome: 'do_not_honor' } }), retrieve(P, { t: 100, p: { status: 'failed', failureCode: 'do_not_honor' } })],
    violates: () => [create({ id: P, sent: { cardOutcome: 'do_not_honor' } }), webhook({ seq: 10, type: 'payment.failed', payment: pay({ status: 'failed', failureCode: 'generic_decline' }) })],
    seqs: [10],
    message: /expected do_not_honor/,
  },
  'unknown-payment-404': {
    keeps: () => [retrieve('pay_nope', { status: 404, error: err('resource_missing'), sent: { badInput: bad('unknown id', 404, 'resource_missing', null) } })],
    violates: () => [retrieve('pay_nope', { seq: 11, status: 400, error: err('parameter_invalid'), sent: { badInput: bad('unknown id', 404, 'resource_missing', null) } })],
    seqs: [11],
  },
};
