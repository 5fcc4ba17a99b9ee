/**
 * PAY-1: a create whose recorded body is valid is answered 201 with a Payment, not refused as
 * invalid. The record keeps the sent amount, currency, description, metadata, merchant_reference
 * and return_url (not the customer / billing fields nor the card number), so a refusal is judged
 * when its `param` names one of those and the sent value is valid by the input tables under every
 * reading the spec allows. Before this check no invariant judged a valid succeeding-card or hosted
 * create refused 400 (decline cards and probes were judged by their own rules only).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/index.ts';
import { judge } from '../../src/oracle/index.ts';
import { paramField } from '../../src/oracle/invariants/create-returns-payment.ts';
import { K, create, endRec, err, ex, fault, judgeOne, rate, resetSeq, retrieve, runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

const cardMeta = { expMonth: 12, expYear: 2039, cvcLength: 3, holderName: 'Pay Storm' };
const B = { currency: 'EUR', description: 'paystorm flows', metadata: { scenario: 'flows', order: 'o-1' }, returnUrl: 'https://merchant.example/paystorm/return', cardLast4: '4242', cardBrand: 'visa', cardOutcome: 'succeeds' as const, cardMeta, inputShape: 'B' as const };
const A = { ...B, inputShape: 'A' as const, metadata: undefined, merchantReference: 1234567890 };
const HOSTED = { currency: 'EUR', description: 'paystorm flows', returnUrl: 'https://merchant.example/paystorm/return', merchantReference: 1234567890, inputShape: 'A' as const };
const id = (n: number) => `pay_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const refused = (param: string | null, sent: object, o: Parameters<typeof create>[0] = {}) => create({ status: 400, error: err('parameter_invalid', { param }), ...o, sent: { amount: 1000, ...sent } });
/** An accepted create of the key (the currency and amount the service takes on that op). */
const accepted = (n: number, sent: object = B, amount = 5000, o: Parameters<typeof create>[0] = {}) => create({ id: id(n), t: n * 10, ...o, sent: { amount, ...sent } });

describe('paramField: the body field an error param names', () => {
  it.each([
    ['amount', 'amount'],
    ['currency', 'currency'],
    ['metadata[order]', 'metadata'],
    ['metadata.order', 'metadata'],
    ['body.amount', 'amount'],
    ['/return_url', 'return_url'],
    ['merchant_reference', 'merchant_reference'],
  ])('%s names %s', (param, field) => expect(paramField(param)).toBe(field));
  it.each([null, '', 'card.number', 'payment_method_data.card.exp_year', 'customer.email', 'billing_details.address.country', 'amount_refunded', 'Idempotency-Key'])('%s names no recorded field', (param) => {
    expect(paramField(param)).toBeUndefined();
  });
});

describe('a valid create refused as invalid breaks PAY-1', () => {
  it.each([
    ['currency', 'B', B],
    ['amount', 'B', B],
    ['description', 'B', B],
    ['metadata[order]', 'B', B],
    ['return_url', 'B', B],
    ['merchant_reference', 'A', A],
    ['return_url', 'A', A],
  ] as const)('Direct API create refused naming %s (input shape %s)', async (param, _shape, sent) => {
    const r = await judgeOne('create-returns-payment', [accepted(1, sent), refused(param, sent, { seq: 7, t: 100 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([7]);
    expect(r.examples[0].message).toMatch(new RegExp(`a valid create was refused 400 "parameter_invalid" naming ${param.split('[')[0]}`));
  });
  it('a hosted create refused naming currency or merchant_reference', async () => {
    const r = await judgeOne('create-returns-payment', [
      accepted(1, HOSTED, 5000, { op: 'create_hpp' }),
      refused('currency', HOSTED, { op: 'create_hpp', seq: 8, t: 100 }),
      refused('merchant_reference', HOSTED, { op: 'create_hpp', seq: 9, t: 200 }),
    ]);
    expect(r.status).toBe('fail');
    expect(r.violations).toBe(2);
    expect(r.examples[0].message).toMatch(/a valid hosted create was refused/);
  });
  it('a 422 invalid_request_error naming a valid field is a refusal too', async () => {
    const r = await judgeOne('create-returns-payment', [accepted(1), create({ seq: 5, t: 100, status: 422, error: err('action_not_allowed', { param: 'amount' }), sent: { amount: 1000, ...B } })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([5]);
  });
  it('a description of exactly 500 characters and 50 metadata keys of 500-character values are valid', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(500)]));
    const sent = { ...B, description: 'd'.repeat(500), metadata };
    const r = await judgeOne('create-returns-payment', [accepted(1), refused('description', sent, { t: 100 }), refused('metadata', sent, { t: 200 })]);
    expect(r.violations).toBe(2);
  });
  it('http://localhost return_url is valid in presentation B', async () => {
    const r = await judgeOne('create-returns-payment', [accepted(1), refused('return_url', { ...B, returnUrl: 'http://localhost:3000/return' }, { t: 100 })]);
    expect(r.status).toBe('fail');
  });
  it('plain https URLs (any scheme case, a port, a query, an escape) and non-ASCII plain text are valid', async () => {
    const urls = ['HTTPS://Merchant.Example/return', 'https://merchant.example:8443/r?order=o-1&x=%20#top', 'https://127.0.0.1/r'];
    const r = await judgeOne('create-returns-payment', [
      accepted(1),
      ...urls.map((returnUrl, i) => refused('return_url', { ...B, returnUrl }, { t: 100 + i * 10 })),
      refused('description', { ...B, description: 'Zahlung für Bestellung 😀 Nº 42' }, { t: 200 }),
      refused('metadata', { ...B, metadata: { 'kunden-nr': 'Jürgen 😀' } }, { t: 210 }),
    ]);
    expect(r.violations).toBe(5);
  });
  it('an amount refused in a currency and on a path where the key had a larger amount accepted', async () => {
    const r = await judgeOne('create-returns-payment', [
      accepted(1, { ...B, currency: 'GBP' }, 50_000),
      accepted(2, HOSTED, 9000, { op: 'create_hpp' }),
      refused('amount', { ...B, currency: 'gbp', amount: 40_000 }, { seq: 7, t: 100 }),
      refused('amount', { ...HOSTED, amount: 9000 }, { op: 'create_hpp', seq: 8, t: 110 }),
    ]);
    expect(r.examples.map((e) => e.seqs)).toEqual([[7], [8]]);
    expect(r.examples[0].message).toMatch(/the key had Direct API creates in "gbp" of up to 50000 accepted/);
    expect(r.examples[1].message).toMatch(/a valid hosted create was refused .* the key had hosted creates in "EUR" of up to 9000 accepted/);
  });
});

describe('refusals the record does not prove wrong are not judged', () => {
  const judged = async (recs: HistoryRecord[]) => {
    const r = await judgeOne('create-returns-payment', [accepted(1), ...recs]);
    expect(r.examples.map((e) => e.message)).toEqual([]);
    expect(r.status).toBe('pass');
    return r;
  };
  it('a param naming no recorded field (null, the customer, the card), or the card\'s own refusals', async () => {
    await judged([
      refused(null, B),
      refused('customer.email', B),
      refused('billing_details.address.country', A),
      refused('card.number', B),
      create({ status: 422, error: err('card_declined', { param: 'amount', decline_code: 'card_velocity_exceeded' }), sent: { amount: 1000, ...B } }),
    ]);
  });
  it('bad-input probes, Idempotency-Key probes and auth probes', async () => {
    await judged([
      refused('currency', { ...B, badInput: { case: 'create/B/metadata-50-keys-accepted', expectStatus: 201, expectCode: '', expectParam: null } }),
      refused('amount', { ...B, idemVariant: 'oversized' }),
      refused('amount', { ...B, idemVariant: 'missing' }),
      refused('amount', { ...B, auth: 'basic' }),
    ]);
  });
  it('other statuses: 409, 429, 401, 403, 402, 5xx', async () => {
    await judged([409, 429, 401, 403, 402, 500, 503].map((status) => create({ status, error: err('parameter_invalid', { param: 'amount' }), sent: { amount: 1000, ...B } })));
  });
  it('values the spec does not make valid: amount 0, a non-ISO or lowercase currency, a 501-character description, 51 metadata keys, a 9-digit reference, plain http', async () => {
    await judged([
      refused('amount', { ...B, amount: 0 }),
      refused('amount', { ...B, amount: 10.5 }),
      refused('currency', { ...B, currency: 'XXQ' }),
      refused('currency', { ...B, currency: 'eur' }),
      refused('description', { ...B, description: 'd'.repeat(501) }),
      refused('description', { ...B, description: '' }),
      refused('metadata', { ...B, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }),
      refused('metadata', { ...B, metadata: { note: 'v'.repeat(501) } }),
      refused('merchant_reference', { ...A, merchantReference: 123456789 }),
      refused('return_url', { ...B, returnUrl: 'http://merchant.example/return' }),
      refused('return_url', { ...B, returnUrl: 'not a url' }),
    ].map((r) => ({ ...r, sent: { ...r.sent, amount: (r.sent as { amount?: unknown }).amount ?? 1000 } })));
  });
  it('fields the shape\'s input table does not have: metadata in A or hosted, merchant_reference in B', async () => {
    await judged([
      refused('metadata', { ...A, metadata: { order: 'o-1' } }),
      refused('metadata', { ...HOSTED, metadata: { order: 'o-1' } }, { op: 'create_hpp' }),
      refused('merchant_reference', { ...B, merchantReference: 1234567890 }),
    ]);
  });
  it('http://localhost return_url in presentation A or hosted (A states no URL rule; only https is valid under every reading)', async () => {
    await judged([refused('return_url', { ...A, returnUrl: 'http://localhost:3000/r' }), refused('return_url', { ...HOSTED, returnUrl: 'http://localhost:3000/r' }, { op: 'create_hpp' })]);
  });
  it('a currency the key never had accepted, an amount above any it had accepted (no currency list or maximum is stated)', async () => {
    await judged([refused('currency', { ...B, currency: 'JPY' }), refused('amount', { ...B, amount: 5001 })]);
  });
  it('the accepted currency counts per key: another key\'s acceptance proves nothing', async () => {
    await judged([refused('currency', B, { key: K.live })]);
  });
  it('a refusal overlapping a fault window', async () => {
    await judged([fault({ tStart: 1000, tEnd: 2000 }), refused('currency', B, { t: 1500 }), refused('amount', B, { t: 1990, dur: 100 })]);
  });
  it('a raw create records no body fields', async () => {
    await judged([ex({ op: 'create', status: 400, error: err('parameter_invalid', { param: 'amount' }), sent: { method: 'POST', path: '/v1/payments', inputShape: 'B' } })]);
  });
});

describe('review s9: refusals a conforming service may make (each a false fail before)', () => {
  const judged = async (recs: HistoryRecord[]) => {
    const r = await judgeOne('create-returns-payment', recs);
    expect(r.examples.map((e) => e.message)).toEqual([]);
    expect(r.status).toBe('pass');
  };
  it('a per-currency maximum: 50000 EUR accepted does not make 40000 GBP valid (the spec states no maximum, per currency or at all)', async () => {
    await judged([accepted(1, { ...B, currency: 'EUR' }, 50_000), accepted(2, { ...B, currency: 'GBP' }, 20_000), refused('amount', { ...B, currency: 'GBP', amount: 40_000 }, { seq: 7, t: 100 })]);
  });
  it('a per-path maximum: an amount the hosted page took proves nothing for the Direct API, nor the reverse', async () => {
    await judged([accepted(1, HOSTED, 50_000, { op: 'create_hpp' }), accepted(2, B, 20_000), refused('amount', { ...B, amount: 40_000 }, { seq: 7, t: 100 })]);
    await judged([accepted(1, B, 50_000), accepted(2, HOSTED, 20_000, { op: 'create_hpp' }), refused('amount', { ...HOSTED, amount: 40_000 }, { op: 'create_hpp', seq: 7, t: 100 })]);
  });
  it('a currency the hosted page takes need not be one the Direct API takes (the spec lists no supported currencies, per path or at all)', async () => {
    await judged([accepted(1, { ...HOSTED, currency: 'USD' }, 5000, { op: 'create_hpp' }), accepted(2, { ...B, currency: 'EUR' }, 5000), refused('currency', { ...B, currency: 'USD' }, { seq: 7, t: 100 })]);
  });
  it('nor the reverse: a currency the Direct API takes for a hosted create', async () => {
    await judged([accepted(1, { ...B, currency: 'USD' }), refused('currency', { ...HOSTED, currency: 'USD' }, { op: 'create_hpp', seq: 7, t: 100 })]);
  });
  it('a hosted create: the spec states no description maximum for it (500 is "Direct API payment"), so a 300-character (or any) description may be refused', async () => {
    await judged([
      accepted(1, HOSTED, 5000, { op: 'create_hpp' }),
      refused('description', { ...HOSTED, description: 'd'.repeat(300) }, { op: 'create_hpp', seq: 7, t: 100 }),
      refused('description', HOSTED, { op: 'create_hpp', seq: 8, t: 110 }),
    ]);
  });
  it('a return_url with leading or trailing whitespace is not "an https URL" under every reading (WHATWG new URL() strips it; RFC 3986 parsers refuse it)', async () => {
    await judged([
      accepted(1),
      refused('return_url', { ...B, returnUrl: ' https://merchant.example/return' }, { seq: 7, t: 100 }),
      refused('return_url', { ...B, returnUrl: 'https://merchant.example/return\n' }, { seq: 8, t: 110 }),
      refused('return_url', { ...B, returnUrl: 'https://merchant.example/re\tturn' }, { seq: 9, t: 120 }),
      refused('return_url', { ...B, returnUrl: 'https://merchant.example/a b' }, { seq: 10, t: 130 }),
    ]);
  });
  it('"https:merchant.example/return" (no //) is accepted by new URL() but is no absolute https URL to an RFC 3986 validator; nor are https:/// and backslashes', async () => {
    await judged([
      accepted(1),
      refused('return_url', { ...B, returnUrl: 'https:merchant.example/return' }, { seq: 7, t: 100 }),
      refused('return_url', { ...B, returnUrl: 'https:///merchant.example/return' }, { seq: 8, t: 110 }),
      refused('return_url', { ...B, returnUrl: 'https:\\\\merchant.example\\return' }, { seq: 9, t: 120 }),
      refused('return_url', { ...B, returnUrl: 'https://merchant.example\\return' }, { seq: 10, t: 130 }),
      refused('return_url', { ...B, returnUrl: 'http://localhost.merchant.example/return' }, { seq: 11, t: 140 }),
      refused('return_url', { ...B, returnUrl: 'https://user:pw@merchant.example/return' }, { seq: 12, t: 150 }),
    ]);
  });
  it('a description holding a lone surrogate (not valid Unicode text, RFC 8259 8.2) may be refused', async () => {
    await judged([accepted(1), refused('description', { ...B, description: 'paystorm \ud800 flows' }, { seq: 7, t: 100 })]);
  });
  it('a description or metadata key or value holding NUL, a C0 control (tab, newline too), DEL or a lone surrogate may be refused', async () => {
    await judged([
      accepted(1),
      ...['paystorm\u0000flows', 'paystorm\tflows', 'paystorm\nflows', 'paystorm\u007fflows', 'paystorm \udc00'].flatMap((bad, i) => [
        refused('description', { ...B, description: bad }, { seq: 10 + i, t: 100 + i * 10 }),
        refused('metadata', { ...B, metadata: { order: bad } }, { seq: 20 + i, t: 200 + i * 10 }),
        refused('metadata[x]', { ...B, metadata: { [bad]: 'o-1' } }, { seq: 30 + i, t: 300 + i * 10 }),
      ]),
    ]);
  });
  it('a metadata key over the recommended 40 characters may be refused', async () => {
    await judged([accepted(1), refused('metadata', { ...B, metadata: { ['k'.repeat(41)]: 'v' } }, { seq: 7, t: 100 })]);
  });
});

describe('the whole oracle on a run that refuses every fifth valid create', () => {
  const S = 1_700_000_000;
  /** Valid creates with the succeeding card, and hosted creates, every fifth refused naming `param`; each accepted one retrieved succeeded. */
  function history(param: string | null): HistoryRecord[] {
    const recs: HistoryRecord[] = [runRec({ rateLimit: { limit: 100, windowMs: 60_000 }, webhooks: { receiverUrl: 'http://127.0.0.1:2/hook', wired: false, failShare: 0, ackTimeoutMs: 10_000 } })];
    let n = 0;
    const rh = () => rate(S + 60, 99 - n++, 100);
    for (let i = 0; i < 10; i++) {
      const hosted = i % 2 === 1;
      const sent = { amount: 1000 + i, ...(hosted ? { ...HOSTED, merchantReference: 1234567890 + i } : B) };
      const op = hosted ? ('create_hpp' as const) : ('create' as const);
      if (i % 5 === 4) {
        recs.push(create({ op, t: i * 100, rate: rh(), status: 400, error: err('parameter_invalid', { param, message: 'Invalid currency: expected an ISO 4217 code.' }), sent }));
        continue;
      }
      const p = hosted
        ? { amount: 1000 + i, description: sent.description, hosted: true, status: 'requires_action' as const, wireStatus: 'requires_action', nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'http://x/hpp' }, redirectUrl: 'http://x/hpp' }
        : { amount: 1000 + i, description: sent.description, metadata: B.metadata };
      recs.push(create({ op, id: id(i), t: i * 100, rate: rh(), p, sent }));
      if (!hosted) {
        const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2039, country: null };
        recs.push(retrieve(id(i), { t: i * 100 + 50, rate: rh(), p: { ...p, status: 'succeeded', wireStatus: 'succeeded', card } }));
      }
    }
    recs.push(endRec({ tEnd: 2_000, wall: 1_700_000_002_000 }));
    return recs;
  }
  const failing = async (param: string | null) => (await judge(history(param), {})).invariants.filter((r) => r.status === 'fail' || r.status === 'error').map((r) => r.id);

  it('the same run without refusals fails nothing (the history is sound)', async () => {
    const { invariants } = await judge(history(null).filter((r) => !(r.kind === 'exchange' && r.status === 400)), {});
    expect(invariants.filter((r) => r.status === 'fail' || r.status === 'error').map((r) => `${r.id}: ${r.examples[0]?.message ?? r.error}`)).toEqual([]);
  });
  it('refusals naming currency fail PAY-1 and only PAY-1', async () => {
    expect(await failing('currency')).toEqual(['create-returns-payment']);
  });
  it('refusals with param null are not proven wrong by the record: nothing fails', async () => {
    expect(await failing(null)).toEqual([]);
  });
});
