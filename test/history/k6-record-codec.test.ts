/**
 * The compact encoding of exchange records in k6 output (src/history/k6-record-codec.ts): it
 * gives back what the record's JSON gives back, for the real recordings' records and for
 * random records with every optional field, awkward values and fields the table does not know.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { decodeK6Record, encodeK6Record, k6RecordHead, k6RecordHeadOfLiteral, K6_RECORD_ENCODING } from '../../src/history/k6-record-codec.ts';
import { compileFastParse, NOT_SURE } from '../../src/history/schema-check.ts';
import { exchangeRecordSchema, FAILURE_KINDS, type ExchangeRecord } from '../../src/history/schema.ts';
import { OPERATIONS } from '../../src/spec/operations.ts';
import { CARD_OUTCOMES } from '../../src/spec/cards.ts';
import { PAYMENT_STATUSES, REFUND_STATUSES } from '../../src/spec/statuses.ts';
import { seededRandom } from '../../src/spec/random.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';

const SAMPLES = sharedPath('samples/k6/');
/** The real recordings these tests read (../shared/samples/k6; skipped with the reason when absent). */
const RECORDINGS = ['mixed-30s-clean', 'mixed-sigint-at-12s', 'idempotency-idem-no-inflight-lock', 'rate-limit-clean'];
const RECORDING_FILES = RECORDINGS.map((n) => `samples/k6/${n}.k6.json.gz`);

/** What JSON would give back: the codec's contract. */
const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v));
const roundTrip = (r: unknown) => decodeK6Record(encodeK6Record(r as ExchangeRecord));

/** The exchange records (as JSON text) a real recording carries. */
function recordedTexts(name: string): string[] {
  const out: string[] = [];
  for (const line of gunzipSync(readFileSync(`${SAMPLES}${name}.k6.json.gz`)).toString('utf8').split('\n')) {
    if (!line.includes('"paystorm_record"')) continue;
    out.push((JSON.parse(line) as { data: { metadata: Record<string, string> } }).data.metadata.paystorm_record);
  }
  return out;
}

/** Random records: every field present or absent, nulls where defaults are not, awkward strings and numbers, unknown fields. */
function randomRecords(count: number, seed: number): Record<string, unknown>[] {
  const rnd = seededRandom(seed);
  const chance = (p: number) => rnd() < p;
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const text = () => pick(['', 'paystorm k6', `it's`, 'say "hi"', 'back\\slash', 'é…漢字😀', '</script>&amp;', 'line\nbreak', `'"'"`, `k6-create-${int(0, 1e9).toString(16)}`]);
  const anyValue = (): unknown => pick([null, 0, -1, 1.5, 2 ** 53 - 1, true, false, text(), [1, 'a', null], { a: text(), b: [null] }, NaN]);
  const second = () => (chance(0.9) ? 1795869900 + int(-100, 100) : chance(0.5) ? 1795869900.5 : null);
  const ms = () => (chance(0.8) ? 1795869906000 + int(0, 1e6) : 1795869906000 + rnd() * 1e6);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const tStart = ms();
    const sent: Record<string, unknown> = {};
    for (const [k, v] of [
      ['paymentId', () => `pay_${int(0, 1e9)}`],
      ['amount', anyValue],
      ['currency', () => pick(['EUR', 'usd', null, 5])],
      ['description', anyValue],
      ['metadata', () => pick([{ source: 'paystorm-k6' }, {}, null, { o: text() }])],
      ['merchantReference', anyValue],
      ['returnUrl', anyValue],
      ['cardLast4', () => String(int(1000, 9999))],
      ['cardOutcome', () => pick(CARD_OUTCOMES)],
      ['cardMeta', () => ({ expMonth: int(1, 12), expYear: int(2026, 2031), cvcLength: int(3, 4), holderName: text() })],
      ['inputShape', () => pick(['A', 'B'])],
      ['list', () => (chance(0.5) ? { limit: pick([10, 'abc', 0]), startingAfter: 'pay_1', status: 'pending', createdGte: 5, createdLt: null } : {})],
      ['method', () => pick(['GET', 'POST'])],
      ['path', () => '/sandbox/hpp/abc'],
      ['threeDsResult', () => pick(['success', 'fail'])],
      ['idemVariant', () => pick(['missing', 'oversized'])],
      ['cardBrand', () => 'visa'],
      ['auth', () => pick(['ok', 'missing', 'basic'])],
      ['badInput', () => ({ case: 'amount-string', expectStatus: 400, expectCode: 'parameter_invalid', expectParam: chance(0.5) ? 'amount' : null })],
      ['brandNewSentField', anyValue],
    ] as [string, () => unknown][]) {
      if (chance(0.35)) sent[k] = v();
    }
    const r: Record<string, unknown> = {
      v: 1,
      kind: 'exchange',
      seq: chance(0.7) ? 0 : int(1, 1e6),
      scenario: pick(['mixed', 'rate-limit', `o'brien "quoted"`]),
      op: pick(OPERATIONS),
      key: pick(['acme/test/…b605', 'm1/live/…9999']),
      sent,
      tIntended: chance(0.7) ? tStart : tStart - rnd() * 50,
      tStart,
      tEnd: chance(0.1) ? tStart : chance(0.1) ? tStart - 3 : tStart + rnd() * 2000,
      wall: chance(0.8) ? tStart : ms(),
      status: pick([0, 200, 201, 303, 400, 404, 409, 429, 500, 503]),
      contentType: pick(['application/json', 'application/json; charset=utf-8', 'text/html', null]),
      rate: chance(0.2)
        ? null
        : { limit: pick([500, null]), remaining: pick([499, 0, null]), reset: second(), ...(chance(0.1) ? { raw: { limit: 'abc', remaining: `'` } } : {}) },
      retryAfter: pick([null, 0, 30]),
      json: chance(0.8),
      error: chance(0.7)
        ? null
        : { type: anyValue(), code: anyValue(), message: text(), param: anyValue(), decline_code: anyValue(), doc_url: anyValue(), request_id: `req_${int(0, 1e6)}`, missing: chance(0.5) ? [] : ['param', 'doc_url'] },
      payment: null,
      refund: null,
      list: null,
      failure: chance(0.8) ? null : pick(FAILURE_KINDS),
    };
    if (chance(0.5)) r.date = chance(0.9) ? Math.floor(tStart / 1000) + int(-2, 2) : 1795869900.25;
    if (chance(0.3)) r.idemKey = text();
    if (chance(0.3)) r.bodyDigest = int(0, 1e9).toString(16);
    if (chance(0.3)) r.attempt = int(0, 3);
    if (chance(0.2)) r.location = chance(0.8) ? 'https://merchant.example/paystorm/return' : null;
    if (chance(0.2)) r.group = `k6-batch-${int(0, 1e6)}`;
    if (chance(0.2)) r.retryAfterRaw = text();
    if (chance(0.2)) r.shapeProblems = [text()];
    if (chance(0.2)) r.leaks = [`card_number: ${text()}`];
    if (chance(0.3)) r.bodySnippet = text();
    if (chance(0.1)) r.oversizedBodyChars = int(1, 1e7);
    if (chance(0.1)) r.clockSlackMs = rnd() * 100;
    if (chance(0.05)) r.someFutureField = anyValue();
    if (chance(0.45)) {
      const status = pick(PAYMENT_STATUSES);
      const redirect = `http://127.0.0.1:1/sandbox/hpp/${int(0, 1e9)}`;
      const nextAction = chance(0.5) ? null : { type: 'redirect', reason: pick(['hosted_payment_page', 'three_ds', null]), redirectUrl: pick([redirect, null]) };
      const id = chance(0.5) && typeof sent.paymentId === 'string' ? sent.paymentId : `pay_${int(0, 1e9)}`;
      const payment: Record<string, unknown> = {
        id,
        presentation: pick(['A', 'B']),
        status,
        wireStatus: chance(0.8) ? status : status.toUpperCase(),
        amount: chance(0.4) ? (sent.amount ?? 5) : pick([5, 0, NaN, 1.5]),
        currency: chance(0.5) ? (sent.currency ?? 'EUR') : pick(['EUR', 'JPY']),
        livemode: pick([false, true, null]),
        created: second(),
        hosted: pick([false, true, null]),
        nextAction,
        amountRefunded: pick([0, 100, null]),
        amountRefundable: pick([null, 5]),
        card: chance(0.4)
          ? null
          : {
              brand: pick(['visa', null]),
              last4: chance(0.5) ? (sent.cardLast4 ?? '4242') : pick(['0002', null]),
              exp_month: pick([1, 12, null]),
              exp_year: pick([2029, null]),
              ...(chance(0.5) ? { country: pick(['US', null]) } : {}),
            },
        failureCode: pick([null, 'do_not_honor']),
        description: chance(0.6) ? (sent.description ?? null) : anyValue(),
        metadata: chance(0.6) ? (sent.metadata ?? null) : pick([{}, { a: '1' }, null]),
        merchantReference: chance(0.6) ? (sent.merchantReference ?? null) : pick([7, null]),
        redirectUrl: chance(0.6) ? (nextAction?.redirectUrl ?? null) : pick([redirect, null]),
        succeededAt: second(),
        failedAt: second(),
        refundedAt: second(),
        refunds: chance(0.3)
          ? null
          : Array.from({ length: int(0, 3) }, () => ({ id: `re_${int(0, 1e9)}`, paymentId: chance(0.8) ? id : 'pay_other', amount: pick([100, null]), status: pick(REFUND_STATUSES), created: second() })),
      };
      if (chance(0.05)) payment.extraPaymentField = text();
      r.payment = payment;
    }
    if (chance(0.2)) r.refund = { id: `re_${int(0, 1e9)}`, paymentId: chance(0.5) ? (sent.paymentId ?? 'pay_x') : 'pay_y', amount: chance(0.5) ? (sent.amount ?? null) : pick([3, null]), status: pick(REFUND_STATUSES), created: second() };
    if (chance(0.2)) {
      const n = int(0, 4);
      r.list = {
        object: pick(['list', null, 'search_result']),
        ids: Array.from({ length: n }, () => `pay_${int(0, 1e9)}`),
        hasMore: pick([true, false, null]),
        url: pick(['/v1/payments', null, 5]),
        statuses: Array.from({ length: n }, () => pick(['pending', 'succeeded', ''])),
        created: Array.from({ length: n }, () => second()),
        livemodes: Array.from({ length: n }, () => pick([false, true, null])),
        ...(chance(0.7) ? { descriptions: Array.from({ length: n }, () => pick([null, 'paystorm k6', text()])) } : {}),
      };
    }
    out.push(r);
  }
  return out;
}

describeWithShared(RECORDING_FILES, 'the compact k6 record encoding', () => {
  it.each(RECORDINGS)('gives back every exchange record of the real recording %s', (name) => {
    const texts = recordedTexts(name);
    expect(texts.length).toBeGreaterThan(100);
    for (const text of texts) {
      const record = JSON.parse(text) as ExchangeRecord;
      const encoded = encodeK6Record(record);
      expect(encoded.startsWith(`[${K6_RECORD_ENCODING},`)).toBe(true);
      expect(decodeK6Record(encoded)).toStrictEqual(record);
      // Today's JSON records still decode as they are.
      expect(decodeK6Record(text)).toStrictEqual(record);
    }
  });

  it('the compiled decoder gives what the table-driven one gives, field for field and in the same order (real and 2,000 random records)', () => {
    const encoded = [
      ...RECORDINGS.flatMap((name) => recordedTexts(name).map((t) => encodeK6Record(JSON.parse(t) as ExchangeRecord))),
      ...randomRecords(2000, 29).map((r) => encodeK6Record(r as ExchangeRecord)),
    ];
    let compiledOnes = 0;
    for (const text of encoded) {
      const table = decodeK6Record(text, { table: true });
      // The key order too: evidence and repro scripts print records as JSON.
      expect(JSON.stringify(decodeK6Record(text)), text).toBe(JSON.stringify(table));
      if (!text.endsWith(']]')) compiledOnes++;
    }
    expect(compiledOnes).toBeGreaterThan(500);
  });

  it('is well under half the JSON record as k6 writes it (quoted in a JSON string)', () => {
    const texts = recordedTexts('mixed-30s-clean');
    const quoted = (s: string) => JSON.stringify(s).length;
    const json = texts.reduce((n, t) => n + quoted(t), 0);
    const compact = texts.reduce((n, t) => n + quoted(encodeK6Record(JSON.parse(t) as ExchangeRecord)), 0);
    expect(compact / json).toBeLessThan(0.45);
  });

  it('gives back what JSON gives back for 5,000 random records (every field, nulls, NaN, unknown fields)', () => {
    for (const r of randomRecords(5000, 23)) expect(roundTrip(r), JSON.stringify(r)).toStrictEqual(viaJson(r));
  });

  it('carries a value no slot can say whole, by its path: a null whose default is not, a field the table does not know', () => {
    const [base] = recordedTexts('mixed-30s-clean').map((t) => JSON.parse(t) as ExchangeRecord).filter((r) => r.op === 'create' && r.payment?.card);
    const r = structuredClone(base) as ExchangeRecord & Record<string, unknown>;
    r.payment!.amount = NaN;
    r.payment!.card!.country = null;
    r.location = null;
    r.someFutureField = { a: [1] };
    (r.sent as Record<string, unknown>).newSentField = 'x';
    const encoded = encodeK6Record(r);
    for (const path of ['[["payment","amount"],null]', '[["payment","card","country"],null]', '[["location"],null]', '[["someFutureField"],{"a":[1]}]', '[["sent","newSentField"],"x"]']) expect(encoded).toContain(path);
    expect(decodeK6Record(encoded)).toStrictEqual(viaJson(r));
  });

  it('a decoded record passes the schema exactly when its JSON does, with the same result', () => {
    let valid = 0;
    for (const r of randomRecords(2000, 5)) {
      const viaCodec = exchangeRecordSchema.safeParse(roundTrip(r));
      const viaText = exchangeRecordSchema.safeParse(viaJson(r));
      expect(viaCodec.success).toBe(viaText.success);
      if (viaText.success) {
        valid++;
        expect(JSON.stringify(viaCodec.data)).toBe(JSON.stringify(viaText.data));
      }
    }
    expect(valid).toBeGreaterThan(100);
  });

  it('leaves out what equals its default and writes times as differences', () => {
    const [first] = recordedTexts('mixed-30s-clean').map((t) => JSON.parse(t) as ExchangeRecord).filter((r) => r.op === 'retrieve' && r.payment);
    const encoded = encodeK6Record(first);
    // The payment's id is the one asked for, tIntended and wall are tStart: none is written again.
    expect(encoded.split(first.payment!.id).length - 1).toBe(1);
    expect(encoded.split(String(first.tStart)).length - 1).toBe(1);
    expect(encoded).not.toContain('application/json');
  });

  it('refuses an encoding it does not know, and text that is neither', () => {
    expect(() => decodeK6Record(`[${K6_RECORD_ENCODING + 1},"list"]`)).toThrow(/encoding 3 is not one this paystorm reads.*newer paystorm/);
    expect(() => decodeK6Record('v1 exchange')).toThrow(/neither a JSON record/);
    expect(() => decodeK6Record(`[${K6_RECORD_ENCODING},"list"`)).toThrow();
    expect(() => decodeK6Record(`[${K6_RECORD_ENCODING},"list","k","mixed",1795869906000,"x"]`)).toThrow(/tEnd is not a number/);
  });

  it('the parse compiled from the schema gives what zod gives, or leaves the record to zod (never accepts what zod refuses)', () => {
    const fast = compileFastParse(exchangeRecordSchema);
    const decoded = [...RECORDINGS.flatMap((name) => recordedTexts(name).map((t) => JSON.parse(t) as unknown)), ...randomRecords(3000, 11).map(roundTrip)];
    // Damaged copies too: a field of the wrong type, a required one missing, an unknown one.
    const damaged = decoded.slice(0, 400).map((r, i) => {
      const x = structuredClone(r) as Record<string, unknown>;
      if (i % 4 === 0) x.op = 42;
      else if (i % 4 === 1) delete x.key;
      else if (i % 4 === 2) x.extra = 'a field of a newer paystorm';
      else x.tStart = Infinity;
      return x;
    });
    let sure = 0;
    let valid = 0;
    for (const x of [...decoded, ...damaged]) {
      const zod = exchangeRecordSchema.safeParse(x);
      const quick = fast(x);
      if (zod.success) valid++;
      if (quick === NOT_SURE) continue;
      sure++;
      expect(zod.success, JSON.stringify(x)).toBe(true);
      if (zod.success) expect(JSON.stringify(quick)).toBe(JSON.stringify(zod.data));
    }
    // Most valid records are parsed without zod (the ones with a null payment amount or an unknown field are not).
    expect(sure).toBeGreaterThan(valid * 0.6);
    expect(damaged.filter((x) => fast(x) !== NOT_SURE && !('extra' in x))).toEqual([]);
  });

  it('reads the head (key, scenario, start, end, rate limit) of a compact record as decoding gives it, also from the bytes of its JSON string literal', () => {
    const texts = [...RECORDINGS.flatMap((name) => recordedTexts(name).map((t) => encodeK6Record(JSON.parse(t) as ExchangeRecord))), ...randomRecords(2000, 31).map((r) => encodeK6Record(r as ExchangeRecord))];
    let fromBytes = 0;
    for (const text of texts) {
      const x = decodeK6Record(text) as ExchangeRecord;
      const head = k6RecordHead(text);
      if (head !== null) expect(head).toEqual({ key: x.key, scenario: x.scenario, tStart: x.tStart, tEnd: x.tEnd, rateLimit: x.rate?.limit ?? null });
      const literal = Buffer.from(JSON.stringify(text), 'utf8');
      const bytesHead = k6RecordHeadOfLiteral(literal, 0, literal.length, (b, from, to) => Buffer.from(b.subarray(from, to)).toString('utf8'));
      if (bytesHead === null) continue;
      fromBytes++;
      expect(bytesHead).toEqual({ key: x.key, scenario: x.scenario, tStart: x.tStart, tEnd: x.tEnd, rateLimit: undefined });
    }
    expect(fromBytes).toBeGreaterThan(texts.length / 2);
    // JSON records and other encodings are not read from their bytes.
    const json = Buffer.from(JSON.stringify(recordedTexts('mixed-30s-clean')[0]));
    expect(k6RecordHeadOfLiteral(json, 0, json.length, () => '')).toBeNull();
  });
});
