/**
 * idempotency: same-key replays, different-body conflicts and key scoping, as k6 checks.
 * Each iteration, with one test key:
 *  - IDEM-1 no Idempotency-Key: 400 parameter_missing; IDEM-2 a 256-character key: 400;
 *  - IDEM-3 same key, same body: the original 201 and the same payment id;
 *  - IDEM-4 same key, different body: 409 idempotency_error (reused, or in_use as the
 *    error reference lists it);
 *  - IDEM-7 an error is not kept: after a 400 the same key executes again;
 *  - IDEM-9 the same value on the hosted create is an independent operation;
 *  - IDEM-10 one merchant_reference with two keys gives two payments;
 *  - IDEM-5/6 a small parallel burst on one new key makes at most one payment;
 *  - IDEM-8 the same value under another API key is independent (with 2+ test keys);
 *  - REF-7 a refund replayed with its key returns the same refund.
 * The precise race analysis (request overlap in time, the history oracle) stays in
 * paystorm's own `idempotency` scenario.
 *
 *   k6 run -e TARGET=… -e KEYS=… dist/k6/idempotency.js
 */
import type { Options } from 'k6/options';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { normalizePayment, normalizeRefund, type Presentation } from '../../src/spec/payment.ts';
import { directCreateBody, hostedCreateBody } from '../../src/spec/inputs.ts';
import { DIFFERENT_BODY_409_CODES, IN_FLIGHT_409_CODE, readErrorBody } from '../../src/spec/errors.ts';
import { API_PATHS } from '../../src/spec/operations.ts';
import { LIMITS } from '../../src/spec/limits.ts';
import { isTerminal } from '../../src/spec/statuses.ts';
import { Api, type ApiResult } from '../lib/api.ts';
import { expect } from '../lib/checks.ts';
import { mixedConfig, parseCards, parseKeys, parseNumber, parsePresentation, parseTarget, testKeysOf } from '../lib/config.ts';
import { cardInput, detectTargetPresentation, paymentInput, poll, type FlowCtx } from '../lib/flows.ts';
import { newIdempotencyKey, randomHex } from '../lib/ids.ts';
import { metricKey } from '../lib/thresholds.ts';
import { K6_SYSTEM_TAGS } from '../../src/history/k6-tags.ts';
import { recordEnd, recordRun, setScript, watchCards, windowMsOf } from '../lib/record.ts';

setScript('idempotency');

const KEYS = parseKeys(__ENV);
const TEST_KEYS = testKeysOf(KEYS);
const CARDS = parseCards(__ENV.CARDS);
const CFG = mixedConfig(__ENV);
const PRESENTATION = parsePresentation(__ENV);
watchCards(CARDS);
const VUS = parseNumber(__ENV, 'IDEM_VUS', 2, 1, 100);
const ITERATIONS = parseNumber(__ENV, 'IDEM_ITERATIONS', 3, 1, 10_000);
/** Parallel same-key creates in the burst. */
const BURST = parseNumber(__ENV, 'IDEM_BURST', 4, 2, 20);

export const options: Options = {
  scenarios: {
    idempotency: { executor: 'per-vu-iterations', vus: VUS, iterations: ITERATIONS, maxDuration: '10m', exec: 'idempotency' },
  },
  thresholds: {
    [metricKey('checks')]: ['rate==1'],
    [metricKey('http_req_failed')]: ['rate<0.01'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(99)'],
  userAgent: 'paystorm-k6',
  systemTags: [...K6_SYSTEM_TAGS],
};

interface SetupData {
  presentation: Presentation;
  /** Wall time (epoch ms) at setup's end, for teardown's end marker. */
  setupWall: number;
}

export function setup(): SetupData {
  if (TEST_KEYS.length === 0) throw new Error('idempotency: KEYS has no test key. Set KEYS=[merchant:]svc_test_sk_…');
  if (!CARDS.succeeds) throw new Error('idempotency: CARDS has no "succeeds" card.');
  const api = new Api(parseTarget(__ENV), TEST_KEYS[0], CFG.requestTimeout);
  const det = detectTargetPresentation(api, PRESENTATION, CARDS, CFG.currency);
  console.log(`paystorm k6 idempotency: presentation ${det.presentation} (from ${det.via}); test keys ${TEST_KEYS.map((k) => k.label).join(', ')}`);
  const setupWall = recordRun({ target: parseTarget(__ENV), presentation: det.presentation, rateLimit: null, keys: KEYS, cardOutcomes: Object.keys(CARDS), windowMs: windowMsOf(__ENV) });
  return { presentation: det.presentation, setupWall };
}

/** The end marker: the plan (IDEM_VUS × IDEM_ITERATIONS) that paystorm check compares with the iterations k6 wrote. */
export function teardown(data: SetupData | undefined): void {
  recordEnd(options.scenarios, data ? data.setupWall : undefined);
}

const idOf = (r: ApiResult): string | null => {
  const p = r.status >= 200 && r.status < 300 ? normalizePayment(r.json) : null;
  return p ? p.id : null;
};
const errorOf = (r: ApiResult) => readErrorBody(r.json);

export function idempotency(data: SetupData): void {
  const target = parseTarget(__ENV);
  const key = TEST_KEYS[(exec.vu.idInTest - 1) % TEST_KEYS.length];
  const api = new Api(target, key, CFG.requestTimeout);
  const pres = data.presentation;
  const number = CARDS.succeeds as string;
  const input = paymentInput(CFG.currency, pres, cardInput(number));
  const body = directCreateBody(input, pres);
  const noRetry = { retries: 0, retry429: true };

  // IDEM-1, IDEM-2
  const missing = api.createDirect(body, { ...noRetry, idemKey: null });
  const e1 = errorOf(missing);
  expect('IDEM-1: a POST without Idempotency-Key gives 400 parameter_missing', missing.status === 400 && e1 !== null && e1.code === 'parameter_missing' && e1.type === 'invalid_request_error');
  let long = 'k6-';
  while (long.length <= LIMITS.idempotencyKeyMaxLength) long += randomHex(16);
  const tooLong = api.createDirect(body, { ...noRetry, idemKey: long.slice(0, LIMITS.idempotencyKeyMaxLength + 1) });
  expect('IDEM-2: an Idempotency-Key over 255 characters is refused with 400', tooLong.status === 400);

  // IDEM-3: same key, same body.
  const k = newIdempotencyKey('idem');
  const first = api.createDirect(body, { idemKey: k });
  const id1 = idOf(first);
  expect('PAY-1: a create returns 201 with a pay_ Payment', first.status === 201 && id1 !== null);
  if (!id1) return;
  const replay = api.createDirect(body, { idemKey: k });
  expect('IDEM-3: same key and body replays the original response (same status, same id)', replay.status === first.status && idOf(replay) === id1);

  // IDEM-4: same key, different body.
  const other = directCreateBody({ ...input, amount: input.amount + 1 }, pres);
  const conflict = api.createDirect(other, { ...noRetry, idemKey: k });
  const e4 = errorOf(conflict);
  expect(
    'IDEM-4: same key, different body gives 409 idempotency_error (reused or in_use)',
    conflict.status === 409 && e4 !== null && e4.type === 'idempotency_error' && DIFFERENT_BODY_409_CODES.indexOf(String(e4.code)) >= 0,
  );

  // IDEM-9: one value on another operation is independent.
  const hosted = api.createHosted(hostedCreateBody(paymentInput(CFG.currency, pres)), { idemKey: k });
  const hid = idOf(hosted);
  expect('IDEM-9: one key value on the hosted create is an independent operation', hosted.status === 201 && hid !== null && hid !== id1);

  // IDEM-7: an error response is not kept.
  const k7 = newIdempotencyKey('idem7');
  const bad = api.createDirect(directCreateBody({ ...input, amount: 0 }, pres), { ...noRetry, idemKey: k7 });
  expect('PAY-2: amount below 1 gives 400 parameter_invalid (param amount)', bad.status === 400 && errorOf(bad)?.code === 'parameter_invalid');
  // k6 stamps sends in whole milliseconds: a retry sent within the millisecond the error came
  // back can read as overlapping it, and the oracle then cannot tell it was a retry (IDEM-7).
  sleep(0.005);
  const good = api.createDirect(body, { idemKey: k7 });
  expect('IDEM-7: after an error response the same key executes again', good.status === 201 && idOf(good) !== null && idOf(good) !== id1);

  // IDEM-10: merchant_reference does not deduplicate.
  const a = idOf(api.createDirect(body));
  const b = idOf(api.createDirect(body));
  expect('IDEM-10: one merchant_reference with two keys gives two payments', a !== null && b !== null && a !== b);

  // IDEM-5 / IDEM-6: a parallel burst on one new key.
  const kb = newIdempotencyKey('burst');
  const burstBody = directCreateBody(paymentInput(CFG.currency, pres, cardInput(number)), pres);
  const burst = api.batch(Array.from({ length: BURST }, () => ({ method: 'POST' as const, path: API_PATHS.payments, op: 'create' as const, opts: { body: burstBody, idemKey: kb } })));
  const ids = burst.map(idOf).filter((x): x is string => x !== null);
  expect('IDEM-6: concurrent creates sharing one key make at most one payment', ids.every((x) => x === ids[0]));
  expect(
    'IDEM-5: a concurrent same-key request is replayed or refused 409 idempotency_key_in_use',
    burst.every((r) => (r.status >= 200 && r.status < 300) || (r.status === 409 && errorOf(r)?.code === IN_FLIGHT_409_CODE) || r.status === 429),
  );

  // IDEM-8: the same value under another API key is independent.
  const otherKey = TEST_KEYS.find((x) => x.secret !== key.secret);
  if (otherKey) {
    const r = new Api(target, otherKey, CFG.requestTimeout).createDirect(body, { idemKey: k });
    expect('IDEM-8: one key value under another API key is an independent request', r.status === 201 && idOf(r) !== null && idOf(r) !== id1);
  }

  // REF-7: refund create is idempotent under its own scope.
  const created = normalizePayment(first.json);
  if (!created) return;
  const ctx: FlowCtx = { api, presentation: pres, cfg: CFG, cards: CARDS };
  const settled = poll(ctx, id1, created, (p) => isTerminal(p.status), CFG.settleMaxWaitS, input);
  if (!settled.payment || settled.payment.status !== 'succeeded') return;
  const kr = newIdempotencyKey('refund');
  const path = CFG.refundPath === 'refunds' ? 'refunds' : 'payment';
  const r1 = api.refund(id1, 1, path, { idemKey: kr });
  const r2 = api.refund(id1, 1, path, { idemKey: kr });
  const f1 = r1.status === 201 ? normalizeRefund(r1.json, id1) : null;
  const f2 = r2.status === 201 ? normalizeRefund(r2.json, id1) : null;
  expect('REF-7: a refund replayed with its Idempotency-Key returns the same refund', f1 !== null && f2 !== null && f1.id === f2.id);
}

export default idempotency;
