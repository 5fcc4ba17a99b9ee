/**
 * Seeded random histories for the oracle's regression corpus (scripts/oracle-corpus.ts). A small
 * model of a service (payments per key, idempotency keys, refunds, fixed rate windows, webhook
 * deliveries with retries, an upstream fault) answers mostly as the spec says; a seeded share of
 * its answers is bent (a wrong status code, a changed amount, a step back in the state machine, a
 * missing header, a stale or badly signed webhook, a new event id on a retry...). The run record's
 * scenarios declare a random set of rules, and the history may end cut short or without its end
 * record. So the histories hold passes, violations of many invariants and not-exercised rules in
 * proportions no matrix run has, which is what a regression corpus wants: the oracle's answer on
 * odd input, fixed.
 *
 * Built from the record factories the oracle's tests use (test/oracle/fixtures.ts) and the
 * project's seeded generator (src/spec/random.ts): the same seed gives the same history.
 */
import { RULE_IDS, type CanonicalPayment, type PaymentStatus } from '../../src/spec/index.ts';
import type { ExchangeRecord, HistoryRecord, RunRecord, WebhookRecord } from '../../src/history/index.ts';
import { seededRandom } from '../../src/spec/random.ts';
import { create, endRec, err, fault, K, list, pay, rate, refundObj, refundReq, resetSeq, retrieve, RUN_WALL, runRec, webhook } from '../../test/oracle/fixtures.ts';

const SCENARIO_NAMES = ['mixed', 'idempotency', 'refunds', 'lists', 'webhooks', 'auth-and-input', 'rate-limit', 'flows'];
const OWN_KEYS = [K.test, K.test2, K.other];
const merchantOf = (key: string) => key.split('/')[0];
/** A refund is pending this long (ms), then succeeded. */
const REFUND_SETTLE_MS = 300;

interface Payment {
  id: string;
  key: string;
  amount: number;
  idemKey: string;
  digest: string;
  createdT: number;
  settleAt: number;
  outcome: 'succeeded' | 'failed';
  refunded: number;
  refunds: { id: string; amount: number; t: number }[];
  notified: boolean;
}

interface Delivery {
  at: number;
  eventId: string;
  type: string;
  attempt: number;
  payment: CanonicalPayment | null;
  refund: { id: string; paymentId: string; amount: number } | null;
}

export interface RandomHistoryInfo {
  seed: number;
  /** Share of answers bent away from the spec. */
  bendShare: number;
  records: number;
}

/** The history of `seed`, run record first. */
export function randomHistory(seed: number): { records: HistoryRecord[]; info: RandomHistoryInfo } {
  resetSeq();
  const u = seededRandom(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(u() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(u() * xs.length)];
  const chance = (p: number) => u() < p;
  const hex = (n: number, w: number) => n.toString(16).padStart(w, '0').slice(-w);

  const presentation = chance(0.5) ? 'A' : 'B';
  const wire = (s: PaymentStatus) => (presentation === 'A' ? s.toUpperCase() : s === 'processing' ? 'pending' : s);
  const bendShare = pick([0, 0.02, 0.08, 0.25]);
  const bend = () => chance(bendShare);
  const limit = int(4, 30);
  const rateKnown = chance(0.9);
  const windowMs = rateKnown ? pick([1000, 2000, 5000]) : 60_000;
  const settleBoundMs = pick([1000, 3000, 8000]);
  const wired = chance(0.8);
  const scenarios = Array.from({ length: int(0, 3) }, () => ({ name: pick(SCENARIO_NAMES), rules: Array.from({ length: int(0, 8) }, () => pick(RULE_IDS)) }))
    // One entry per name, as a run record has.
    .filter((s, i, all) => all.findIndex((o) => o.name === s.name) === i)
    .map((s) => ({ ...s, rules: [...new Set(s.rules)].sort() }));
  const run: RunRecord = runRec({
    runId: `random-${seed}`,
    seed,
    target: { url: 'http://127.0.0.1:1', embedded: true, presentation },
    rateLimit: rateKnown ? { limit, windowMs } : null,
    scenarios,
    settleBoundMs,
    webhooks: wired ? { receiverUrl: 'http://127.0.0.1:2/hook', wired: true, failShare: 0.2, ackTimeoutMs: 10_000 } : null,
  });
  const out: HistoryRecord[] = [run];

  const payments: Payment[] = [];
  const deliveries: Delivery[] = [];
  const windows = new Map<string, { start: number; used: number }>();
  const faultWindow = chance(0.3) ? { from: int(2000, 6000), to: 0 } : null;
  if (faultWindow) faultWindow.to = faultWindow.from + int(500, 3000);
  let t = 0;
  let made = 0;
  let events = 0;

  const statusAt = (p: Payment, at: number): PaymentStatus => (at >= p.settleAt ? p.outcome : 'pending');
  const payOf = (p: Payment, at: number): CanonicalPayment => {
    const status = statusAt(p, at);
    const settledSec = Math.floor((RUN_WALL + p.settleAt) / 1000);
    const refunds = p.refunds.map((r) => refundObj({ id: r.id, paymentId: p.id, amount: r.amount, status: at >= r.t + REFUND_SETTLE_MS ? 'succeeded' : 'pending', created: Math.floor((RUN_WALL + r.t) / 1000) }));
    const refunded = refunds.reduce((n, r) => n + (r.status === 'succeeded' ? (r.amount ?? 0) : 0), 0);
    return pay({
      id: p.id,
      presentation,
      status,
      wireStatus: wire(status),
      amount: p.amount,
      livemode: false,
      created: Math.floor((RUN_WALL + p.createdT) / 1000),
      card: status === 'succeeded' ? { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, country: 'DE' } : null,
      failureCode: status === 'failed' ? 'do_not_honor' : null,
      succeededAt: status === 'succeeded' ? settledSec : null,
      failedAt: status === 'failed' ? settledSec : null,
      amountRefunded: refunded,
      amountRefundable: presentation === 'A' ? (status === 'succeeded' ? p.amount - refunded : 0) : null,
      refundedAt: refunded > 0 && refunded >= p.amount ? settledSec : null,
      refunds,
    });
  };
  /** Counts a request in its key's fixed window: the rate headers to answer with (bent now and then), whether it is over the limit (the caller answers 429), and Retry-After. */
  const admit = (key: string): { headers: ExchangeRecord['rate']; over: boolean; retryAfter: number } => {
    // A fixed window opens with the first request after the previous one ended.
    let w = windows.get(key);
    if (!w || t >= w.start + windowMs) windows.set(key, (w = { start: t, used: 0 }));
    w.used++;
    const start = w.start;
    const reset = Math.ceil((RUN_WALL + start + windowMs) / 1000);
    const over = w.used > limit;
    const remaining = Math.max(0, limit - w.used);
    const headers = bend() ? pick([null, rate(reset + int(1, 5), remaining, limit), rate(reset, remaining - 1, limit)]) : rate(reset, remaining, limit);
    return { headers, over: over !== (bend() && w.used === limit), retryAfter: Math.max(1, Math.ceil((start + windowMs - t) / 1000)) };
  };
  const at = () => ({ t, dur: int(2, 40) });
  const emit = (r: ExchangeRecord) => {
    out.push(r);
    t = Math.max(t, r.tEnd);
  };
  const refused = (code: string, status: number) => ({ status, error: err(code) });
  /** Deliveries due by now, in time order, before the next exchange. */
  const deliver = () => {
    deliveries.sort((a, b) => a.at - b.at);
    while (deliveries.length && deliveries[0].at <= t) {
      const d = deliveries.shift()!;
      const failed = chance(0.2) && d.attempt < 3;
      const w: WebhookRecord = webhook({
        tReceived: d.at,
        eventId: bend() ? `evt_${hex(++events, 8)}x` : d.eventId,
        type: bend() ? pick(['payment.succeeded', 'payment.failed', 'refund.succeeded', 'payment.pending']) : d.type,
        payment: d.payment && bend() ? { ...d.payment, status: 'pending', wireStatus: wire('pending') } : d.payment,
        refund: d.refund ? refundObj({ ...d.refund, status: 'succeeded', created: Math.floor((RUN_WALL + d.at) / 1000) }) : null,
        signature: bend() ? pick(['mismatch', 'stale', 'missing'] as const) : 'ok',
        t: Math.floor((RUN_WALL + d.at) / 1000) - (bend() ? 600 : 0),
        answered: failed ? 500 : 200,
        duplicate: d.attempt > 0,
      });
      out.push(w);
      if (failed && !bend()) deliveries.push({ ...d, at: d.at + 200 * 2 ** d.attempt + int(0, 50), attempt: d.attempt + 1 });
    }
  };
  const settle = () => {
    for (const p of payments) {
      if (p.notified || t < p.settleAt || !wired) continue;
      p.notified = true;
      if (bend()) continue; // the event is never sent
      deliveries.push({ at: p.settleAt + int(5, 400), eventId: `evt_${hex(++events, 8)}`, type: `payment.${p.outcome}`, attempt: 0, payment: payOf(p, p.settleAt), refund: null });
    }
  };

  const ops = int(40, 400);
  for (let i = 0; i < ops; i++) {
    t += u() * 60;
    settle();
    deliver();
    const inFault = faultWindow !== null && t >= faultWindow.from && t < faultWindow.to;
    const r = u();
    const mine = (key: string) => payments.filter((p) => p.key === key);
    if (r < 0.06) {
      // An auth probe: every wrong Authorization gets 401 invalid_api_key, without rate headers.
      const auth = pick(['missing', 'malformed', 'basic', 'bad-prefix', 'unknown-key'] as const);
      const status = bend() ? pick([200, 400, 403]) : 401;
      emit(retrieve(`pay_${hex(int(1, 1e6), 8)}-0000-4000-8000-000000000000`, { ...at(), status, sent: { auth }, error: status === 200 ? null : err('invalid_api_key'), rate: bend() ? rate(0, limit, limit) : null }));
      continue;
    }
    // Requests about a payment are sent with its own key; a retrieve now and then with another one.
    const about = payments.length && r >= 0.3 && r < 0.92 && !(r >= 0.6 && r < 0.82) ? pick(payments) : null;
    const key = about && (r < 0.36 || r >= 0.68 || chance(0.85)) ? about.key : chance(0.05) ? K.live : pick(OWN_KEYS);
    const { headers, over, retryAfter } = admit(key);
    if (over) {
      emit(create({ ...at(), key, status: 429, rate: headers, retryAfter: bend() ? 0 : retryAfter, error: err('rate_limit_exceeded') }));
      continue;
    }
    if (inFault && chance(0.5)) {
      const status = bend() ? pick([500, 502]) : pick([503, 0]);
      emit(create({ ...at(), key, status, rate: headers, error: status === 0 ? null : err(status === 500 ? 'internal_error' : status === 503 ? 'service_unavailable' : 'bad_gateway') }));
      continue;
    }
    if (r < 0.3 || !about) {
      made++;
      const amount = bend() ? int(0, 99) : int(100, 20_000);
      const p: Payment = {
        id: `pay_${hex(made, 8)}-0000-4000-8000-${hex(made * 7919, 12)}`,
        key,
        amount,
        idemKey: `idem-${seed}-${made}`,
        digest: hex(made * 31 + seed, 16),
        createdT: t,
        settleAt: t + int(50, Math.round(settleBoundMs * 1.2)),
        outcome: chance(0.85) ? 'succeeded' : 'failed',
        refunded: 0,
        refunds: [],
        notified: false,
      };
      const answer = payOf(p, t);
      if (bend()) Object.assign(answer, pick([{ amount: amount + 1 }, { status: 'succeeded', wireStatus: wire('succeeded') }, { livemode: true }, { currency: 'USD' }]));
      if (key === K.live && !bend()) {
        emit(create({ ...at(), key, status: 422, rate: headers, error: err('card_declined'), sent: { amount, cardOutcome: 'succeeds' }, idemKey: p.idemKey, bodyDigest: p.digest }));
        continue;
      }
      payments.push(p);
      emit(create({ ...at(), key, id: p.id, p: answer, rate: headers, idemKey: p.idemKey, bodyDigest: p.digest, sent: { amount, currency: 'EUR', cardOutcome: p.outcome === 'succeeded' ? 'succeeds' : 'do_not_honor' } }));
    } else if (r < 0.36) {
      // A replay of a create: the same body gets the same payment; another body gets 409.
      const p = about;
      if (chance(0.6)) {
        const answer = bend() ? { ...payOf(p, p.createdT), id: `pay_${hex(++made, 8)}-0000-4000-8000-${hex(made, 12)}` } : payOf(p, p.createdT);
        emit(create({ ...at(), key, id: answer.id, p: answer, rate: headers, idemKey: p.idemKey, bodyDigest: p.digest, sent: { amount: p.amount }, attempt: 1 }));
      } else if (bend()) emit(create({ ...at(), key, id: `pay_${hex(++made, 8)}-0000-4000-8000-${hex(made, 12)}`, rate: headers, idemKey: p.idemKey, bodyDigest: hex(made, 16), sent: { amount: p.amount + 5 } }));
      else emit(create({ ...at(), key, ...refused('idempotency_key_reused', 409), rate: headers, idemKey: p.idemKey, bodyDigest: hex(made + 1, 16), sent: { amount: p.amount + 5 } }));
    } else if (r < 0.6) {
      const p = about;
      if (merchantOf(key) !== merchantOf(p.key) || key === K.live) {
        // Another merchant's (or mode's) payment is not found.
        emit(retrieve(p.id, { ...at(), key, rate: headers, ...(bend() ? { p: payOf(p, t) } : refused('resource_missing', 404)) }));
        continue;
      }
      const answer = payOf(p, t);
      if (bend()) Object.assign(answer, pick([{ status: 'pending', wireStatus: wire('pending'), succeededAt: null, failedAt: null }, { amount: p.amount * 2 }, { card: null }, { amountRefunded: p.refunded + 1 }]));
      emit(retrieve(p.id, { ...at(), key, p: answer, rate: headers, date: Math.floor((RUN_WALL + t + (bend() ? 5000 : 0)) / 1000) }));
    } else if (r < 0.68) {
      const status = bend() ? pick([400, 500, 200]) : 404;
      emit(retrieve(`pay_${hex(int(1, 1e6), 8)}-0000-4000-8000-ffffffffffff`, { ...at(), key, status, rate: headers, ...(status === 200 ? { p: pay({ presentation }) } : { error: err(status === 404 ? 'resource_missing' : status === 500 ? 'internal_error' : 'parameter_invalid') }) }));
    } else if (r < 0.82) {
      const limitAsked = int(1, 10);
      const visible = payments.filter((p) => merchantOf(p.key) === merchantOf(key) && key !== K.live && p.createdT < t);
      const newestFirst = [...visible].reverse();
      let page = newestFirst.slice(0, limitAsked);
      if (bend()) page = pick([[...page].reverse(), [...page, ...payments.filter((p) => p.key === K.other).slice(0, 1)], newestFirst.slice(0, limitAsked + 2)]);
      emit(
        list(
          page.map((p) => p.id),
          { ...at(), key, rate: headers, sent: { list: { limit: limitAsked } }, statuses: page.map((p) => statusAt(p, t)), created: page.map((p) => Math.floor((RUN_WALL + p.createdT) / 1000)), livemodes: page.map(() => false), hasMore: visible.length > page.length },
        ),
      );
    } else if (r < 0.92) {
      const p = about;
      const status = statusAt(p, t);
      const left = p.amount - p.refunded;
      const amount = chance(0.7) ? int(1, Math.max(1, left)) : left + int(1, 500);
      const fine = status === 'succeeded' && amount <= left;
      if (fine !== bend()) {
        const id = `re_${hex(++made, 8)}`;
        p.refunded += amount;
        p.refunds.push({ id, amount, t });
        emit(refundReq(p.id, { ...at(), key, rate: headers, r: { id, amount, status: 'pending', created: Math.floor((RUN_WALL + t) / 1000) }, sent: { paymentId: p.id, amount } }));
        if (wired) deliveries.push({ at: t + REFUND_SETTLE_MS + int(5, 300), eventId: `evt_${hex(++events, 8)}`, type: 'refund.succeeded', attempt: 0, payment: null, refund: { id, paymentId: p.id, amount } });
      } else {
        emit(refundReq(p.id, { ...at(), key, rate: headers, ...refused('action_not_allowed', 422), sent: { paymentId: p.id, amount } }));
      }
    } else if (r < 0.96) {
      // A request that got no answer.
      emit(create({ ...at(), key, status: 0, rate: null, failure: pick(['timeout', 'reset', 'refused'] as const), sent: { amount: 1000 } }));
    } else {
      // A malformed create: the missing field is named.
      emit(create({ ...at(), key, status: bend() ? 201 : 400, rate: headers, error: err('parameter_invalid', { param: bend() ? null : 'amount' }), sent: { badInput: { case: 'missing-amount', expectStatus: 400, expectCode: 'parameter_invalid', expectParam: 'amount', rule: 'PAY-3' } } }));
    }
  }
  t += settleBoundMs * 2;
  settle();
  deliver();
  if (faultWindow) out.push(fault({ tStart: faultWindow.from, tEnd: faultWindow.to, wallStart: RUN_WALL + faultWindow.from }));
  const ending = u();
  if (ending < 0.8) out.push(endRec({ tEnd: t + 100, wall: RUN_WALL + t + 100, requests: out.filter((x) => x.kind === 'exchange').length }));
  else if (ending < 0.9) out.push(endRec({ tEnd: t + 100, wall: RUN_WALL + t + 100, complete: false, reason: pick(['interrupted', 'cap: --max-duration 30s']), requests: out.filter((x) => x.kind === 'exchange').length }));
  return { records: out, info: { seed, bendShare, records: out.length } };
}
