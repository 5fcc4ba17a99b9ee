import { describe, expect, it } from 'vitest';
import { normalizePayment, validatePaymentShape, detectPresentation, parseKeyArg, redactKeys, SECRET_KEY_PATTERN, signPayload, uniqueLabels, verifySignature, luhnValid, DEFAULT_TEST_CARDS } from '../../src/spec/index.ts';
import { historyRecordSchema, HISTORY_VERSION } from '../../src/history/index.ts';

const paymentB = {
  id: 'pay_0f8fad5b-d9cb-469f-a165-70867728950e',
  object: 'payment',
  amount: 1500,
  currency: 'eur',
  status: 'requires_action',
  created: 1700000000,
  livemode: false,
  description: 'order 1',
  card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: null },
  customer: { email: 'a@b.c', name: 'A B' },
  metadata: { order: '1' },
  decline_code: null,
  decline_message: null,
  redirect_url: null,
  refunded_at: null,
  succeeded_at: null,
  failed_at: null,
  next_action: { type: 'redirect', redirect_url: 'https://x/3ds/1' },
  refunded_amount: 0,
  refunds: [{ id: 're_1', object: 'refund', payment_id: 'pay_x', amount: 5, status: 'pending', created: 1700000001 }],
};
const paymentA = {
  id: 'pay_abc',
  amount: 900,
  currency: 'USD',
  status: 'FAILED',
  integration_type: 'DIRECT_API',
  next_action: null,
  livemode: true,
  created_at: 1700000000,
  amount_refunded: 0,
  amount_refundable: 0,
  failure_code: 'do_not_honor',
};

describe('normalizePayment', () => {
  it('reads presentation B', () => {
    const p = normalizePayment(paymentB)!;
    expect(p.presentation).toBe('B');
    expect(p.status).toBe('requires_action');
    expect(p.currency).toBe('EUR');
    expect(p.nextAction).toEqual({ type: 'redirect', reason: null, redirectUrl: 'https://x/3ds/1' });
    expect(p.hosted).toBe(false);
    expect(p.refunds).toHaveLength(1);
    expect(p.refunds![0].paymentId).toBe('pay_x');
    expect(p.card!.last4).toBe('4242');
    expect(validatePaymentShape(paymentB)).toEqual([]);
  });
  it('reads presentation A', () => {
    const p = normalizePayment(paymentA)!;
    expect(p.presentation).toBe('A');
    expect(p.status).toBe('failed');
    expect(p.failureCode).toBe('do_not_honor');
    expect(p.livemode).toBe(true);
    expect(p.hosted).toBe(false);
    expect(p.amountRefundable).toBe(0);
    expect(validatePaymentShape(paymentA)).toEqual([]);
  });
  it('names the fields that break a presentation', () => {
    expect(validatePaymentShape({ ...paymentB, id: 'pay_notauuid', refunded_amount: 1.5 })).toEqual([
      expect.stringContaining('id: expected pay_ + UUID'),
      expect.stringContaining('refunded_amount'),
    ]);
    expect(detectPresentation({ error: {} })).toBeNull();
    expect(normalizePayment({ id: 'pay_1', status: 'weird' })).toBeNull();
  });
});

describe('keys', () => {
  it('parses [merchant:]KEY and labels it without the secret', () => {
    const k = parseKeyArg('acme:svc_live_sk_abcdef123456');
    expect(k).toMatchObject({ merchant: 'acme', mode: 'live', prefix: 'svc_live_sk_', last4: '3456', label: 'acme/live/…3456' });
    expect(parseKeyArg('api_test_sk_zzzz9999', 'm1').mode).toBe('test');
    expect(() => parseKeyArg('sk_test_abc')).toThrow(/--key.*svc_test_sk_/);
    expect(redactKeys('Bearer svc_live_sk_abcdef123456 x', [k])).toBe('Bearer acme/live/…3456 x');
  });
  it('KEY:merchant the wrong way round is refused without echoing the key', () => {
    const secret = 'svc_test_sk_acmeTestKey4f8a2c91d7e3b605';
    let msg = '';
    try {
      parseKeyArg(`${secret}:acme`);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/the order is --key merchant:KEY/);
    expect(msg).not.toContain(secret);
    expect(msg).not.toContain('acmeTestKey');
  });
  it('SECRET_KEY_PATTERN covers key bodies with - _ . and base64 characters', () => {
    for (const key of ['svc_test_sk_ab-cd_ef.gh', 'api_live_sk_Zm9v+YmFy/YmF6=']) expect(key.replace(SECRET_KEY_PATTERN, 'X')).toBe('X');
  });
});

describe('signatures', () => {
  it('signs and verifies, rejecting tampering and stale timestamps', () => {
    const body = '{"id":"evt_1"}';
    const now = 1_700_000_000;
    const h = signPayload('whsec_s', body, now);
    expect(verifySignature('whsec_s', body, h, now).verdict).toBe('ok');
    expect(verifySignature('whsec_s', body + ' ', h, now).verdict).toBe('mismatch');
    expect(verifySignature('whsec_other', body, h, now).verdict).toBe('mismatch');
    expect(verifySignature('whsec_s', body, h, now + 301).verdict).toBe('stale');
    expect(verifySignature('whsec_s', body, h, now + 300).verdict).toBe('ok');
    expect(verifySignature('whsec_s', body, undefined, now).verdict).toBe('missing');
    expect(verifySignature('whsec_s', body, 'garbage', now).verdict).toBe('malformed');
  });
});

describe('cards and history', () => {
  it('default test cards are Luhn-valid', () => {
    for (const n of Object.values(DEFAULT_TEST_CARDS)) expect(luhnValid(n), n).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
  });
  it('the history schema accepts an end record and rejects another version', () => {
    const end = { v: HISTORY_VERSION, kind: 'end', tEnd: 1, wall: 2, complete: true, reason: 'done', requests: 3, dropped: 0 };
    expect(historyRecordSchema.safeParse(end).success).toBe(true);
    expect(historyRecordSchema.safeParse({ ...end, v: 2 }).success).toBe(false);
  });
});

describe('uniqueLabels', () => {
  it('two keys of one merchant ending alike get labels apart; others keep theirs', () => {
    const keys = ['acme:svc_test_sk_aaaa1234', 'acme:svc_test_sk_bbbb1234', 'other:svc_test_sk_cccc1234', 'acme:svc_test_sk_dddd1234'].map((k) => parseKeyArg(k));
    expect(uniqueLabels(keys).map((k) => k.label)).toEqual(['acme/test/…1234', 'acme/test/…1234#2', 'other/test/…1234', 'acme/test/…1234#3']);
    expect(uniqueLabels(keys).map((k) => k.secret)).toEqual(keys.map((k) => k.secret));
  });
});
