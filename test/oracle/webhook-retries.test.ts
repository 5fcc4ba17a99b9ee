/**
 * WH-9 from the history alone: a failed delivery is retried, and the gaps between the
 * attempts of one event grow (with tolerance for timer jitter); the receiver's injected
 * failures are reported as a finding. PAY-9 is judged on webhook payloads too.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { endRec, judgeOne, pay, resetSeq, webhook } from './fixtures.ts';
import type { WebhookRecord } from '../../src/history/index.ts';
import { judge } from '../../src/oracle/index.ts';
import { runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

/** One event delivered at these times; every attempt but the last answered `fail` (500 by default). */
function attempts(eventId: string, times: number[], fail = 500): WebhookRecord[] {
  return times.map((t, i) => webhook({ eventId, tReceived: t, answered: i < times.length - 1 ? fail : 200, duplicate: i > 0, payment: pay({ id: `pay_${eventId}`, status: 'succeeded' }) }));
}
const at = (start: number, gaps: number[]) => gaps.reduce((ts, g) => [...ts, ts[ts.length - 1] + g], [start]);

describe('failed-delivery-retried (WH-9): growing intervals', () => {
  it('passes exponential backoff, with a late timer on the first gap', async () => {
    const r = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(1000, [250, 500, 1000])), ...attempts('evt_b', at(1100, [400, 520, 1010])), endRec({ tEnd: 10_000 })]);
    expect(r.examples.map((e) => e.message)).toEqual([]);
    expect(r.status).toBe('pass');
    expect(r.checked).toBe(6);
  });

  it('passes backoff with jitter that keeps the trend (a step may shrink a little)', async () => {
    const r = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(0, [1000, 1700, 1500, 5000])), endRec({ tEnd: 60_000 })]);
    expect(r.status).toBe('pass');
  });

  it('fails retries at a constant interval, naming the attempts', async () => {
    const recs = attempts('evt_a', at(1000, [250, 260, 255]));
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 10_000 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/evt_a came at intervals 250, 260, 255 ms: they do not grow/);
    expect(r.examples[0].seqs).toEqual(recs.map((x) => x.seq));
  });

  it('below 200 ms between retries growth is not judged (timer noise: a 50/100/200 ms backoff was seen as 164, 118, 214), from 200 ms a constant interval fails', async () => {
    const noisy = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(0, [164, 118, 214])), endRec({ tEnd: 10_000 })]);
    expect(noisy.status).toBe('pass');
    resetSeq();
    const tiny = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(0, [50, 52, 51])), endRec({ tEnd: 10_000 })]);
    expect(tiny.violations).toBe(0);
    resetSeq();
    const fixed = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(0, [253, 252, 256])), endRec({ tEnd: 10_000 })]);
    expect(fixed.status).toBe('fail');
    expect(fixed.examples[0].message).toMatch(/do not grow/);
  });

  it('does not judge growth on two gaps, nor on a gap that follows no answer (the service time-out is part of it)', async () => {
    const two = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(0, [250, 250])), endRec({ tEnd: 10_000 })]);
    expect(two.status).toBe('pass');
    resetSeq();
    // A stall (answered 0) then 500s: the first gap holds the 10 s time-out; the known gaps 500, 1000 grow.
    const recs = attempts('evt_b', at(0, [10_250, 500, 1000]));
    recs[0].answered = 0;
    const stall = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 30_000 })]);
    expect(stall.examples.map((e) => e.message)).toEqual([]);
    expect(stall.status).toBe('pass');
  });

  it('a late timer inflates the gap before it, never the one after: growth and shrinking are judged against the smallest earlier gap', async () => {
    // 250/500/1000 ms backoff whose first retry fired 470 ms late: 720, 500, 1000.
    const late = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(0, [720, 500, 1000])), endRec({ tEnd: 10_000 })]);
    expect(late.examples.map((e) => e.message)).toEqual([]);
    resetSeq();
    // 200/400/800 ms with the first retry 400 ms late: 600, 400, 800.
    const late2 = await judgeOne('failed-delivery-retried', [...attempts('evt_b', at(0, [600, 400, 800])), endRec({ tEnd: 10_000 })]);
    expect(late2.examples.map((e) => e.message)).toEqual([]);
    resetSeq();
    // 50/100/200 ms (a time-scaled service) with the first retry 400 ms late: 450, 100, 200 is no shrink.
    const scaled = await judgeOne('failed-delivery-retried', [...attempts('evt_c', at(0, [450, 100, 200])), endRec({ tEnd: 10_000 })]);
    expect(scaled.examples.map((e) => e.message)).toEqual([]);
    resetSeq();
    // A constant interval with one late timer still fails: 700, 252, 256.
    const fixed = await judgeOne('failed-delivery-retried', [...attempts('evt_d', at(0, [700, 252, 256])), endRec({ tEnd: 10_000 })]);
    expect(fixed.examples.map((e) => e.message)).toEqual(['retries of evt_d came at intervals 700, 252, 256 ms: they do not grow']);
  });

  it('fails an interval that shrinks to well under half the one before', async () => {
    const r = await judgeOne('failed-delivery-retried', [...attempts('evt_a', at(0, [2000, 400, 3000])), endRec({ tEnd: 20_000 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/shrank/);
  });

  it('counts a later delivery about the same payment under another id as the retry (WH-8 judges the id)', async () => {
    const r = await judgeOne('failed-delivery-retried', [webhook({ eventId: 'evt_1', answered: 500, tReceived: 1000 }), webhook({ eventId: 'evt_2', tReceived: 2000 }), endRec({ tEnd: 600_000 })]);
    expect(r.status).toBe('pass');
    expect(r.checked).toBe(1);
  });

  it('after a failed retry, waits for several times the last gap before judging "not retried"', async () => {
    // Another event shows first retries of 250 ms; this one failed at 0, 250, 750 and its next retry (1 s later) is not in yet.
    const other = attempts('evt_o', at(0, [250]));
    const stuck = attempts('evt_a', at(0, [250, 500]), 500).map((x) => ({ ...x, answered: 500 }));
    const early = await judgeOne('failed-delivery-retried', [...other, ...stuck, endRec({ tEnd: 750 + 2000 })]);
    expect(early.violations).toBe(0);
    resetSeq();
    const other2 = attempts('evt_o', at(0, [250]));
    const stuck2 = attempts('evt_a', at(0, [250, 500]), 500).map((x) => ({ ...x, answered: 500 }));
    const late = await judgeOne('failed-delivery-retried', [...other2, ...stuck2, endRec({ tEnd: 750 + 8 * 500 + 10_000 + 1 })]);
    expect(late.status).toBe('fail');
    expect(late.examples[0].message).toMatch(/evt_a failed \(500\) and was not retried/);
  });
});

describe('webhook-failures-injected finding', () => {
  const run = async (failShare: number, recs: WebhookRecord[]) => {
    const { invariants, findings } = await judge([runRec({ webhooks: { receiverUrl: 'http://127.0.0.1:2/hook', wired: true, failShare, ackTimeoutMs: 10_000 } }), ...recs, endRec({ tEnd: 20_000 })], { only: ['failed-delivery-retried'] });
    return { result: invariants[0], finding: (findings ?? []).find((f) => f.id === 'webhook-failures-injected') };
  };

  it('says what share of test-mode events the receiver failed, how many repeatedly, and how to turn it off', async () => {
    const recs = [
      ...attempts('evt_a', at(0, [250, 500, 1000])),
      ...attempts('evt_b', at(0, [250])),
      webhook({ eventId: 'evt_c', payment: pay({ id: 'pay_c', status: 'succeeded' }) }),
      webhook({ eventId: 'evt_d', payment: pay({ id: 'pay_d', status: 'succeeded' }) }),
      webhook({ eventId: 'evt_live', livemode: true, payment: pay({ id: 'pay_live', status: 'succeeded', livemode: true }) }),
    ];
    const { finding } = await run(0.2, recs);
    expect(finding).toMatchObject({ level: 'info', rules: ['WH-8', 'WH-9'] });
    expect(finding!.text).toMatch(/first delivery of 2 of 4 test-mode events \(fail share 0\.2\), 1 of them on 3 attempts in a row/);
    expect(finding!.text).toMatch(/--webhook-fail-share 0/);
  });

  it('is absent when the run failed no share', async () => {
    const { finding, result } = await run(0, [webhook()]);
    expect(finding).toBeUndefined();
    expect(result.status).toBe('not-exercised');
  });
});

describe('no-card-data-returned (PAY-9) on webhook payloads', () => {
  const P = 'pay_00000000-0000-4000-8000-000000000001';
  const card = (last4: string) => ({ brand: 'visa', last4, exp_month: 1, exp_year: 2030 });

  it('fails a full card number found in a delivery, naming it', async () => {
    const r = await judgeOne('no-card-data-returned', [webhook({ seq: 7, payment: pay({ id: P, status: 'succeeded', card: card('4242') }), leaks: ['full card number at data.payment.card.number', 'full number of …4242 echoed'] })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([7]);
    expect(r.examples[0].message).toMatch(/card number/);
  });

  it('fails a CVC in a delivery', async () => {
    const r = await judgeOne('no-card-data-returned', [webhook({ payment: pay({ id: P, status: 'succeeded', card: card('4242') }), leaks: ['cvc returned at data.payment.card.cvc'] })]);
    expect(r.status).toBe('fail');
  });

  it('judges card.last4 of a webhook payment against the card sent', async () => {
    const { create } = await import('./fixtures.ts');
    const good = await judgeOne('no-card-data-returned', [create({ id: P, sent: { cardLast4: '4242' } }), webhook({ payment: pay({ id: P, status: 'succeeded', card: card('4242') }) })]);
    expect(good.status).toBe('pass');
    resetSeq();
    const bad = await judgeOne('no-card-data-returned', [create({ id: P, sent: { cardLast4: '4242' } }), webhook({ seq: 9, payment: pay({ id: P, status: 'succeeded', card: card('1111') }) })]);
    expect(bad.status).toBe('fail');
    expect(bad.examples[0].message).toMatch(/shows card.last4 1111, but the card sent ends 4242/);
    expect(bad.examples[0].seqs).toEqual([9]);
  });

  it('passes a clean webhook payment alone (judged, not skipped)', async () => {
    const r = await judgeOne('no-card-data-returned', [webhook({ payment: pay({ id: P, status: 'succeeded', card: card('4242') }) })]);
    expect(r.status).toBe('pass');
    expect(r.checked).toBeGreaterThan(0);
  });
});

describe('WH-9 on a run cut short', () => {
  it('does not call a failed delivery "not retried" when the run was interrupted (its receiver stopped early), but does on a complete run', async () => {
    const failed = () => [webhook({ eventId: 'evt_x', answered: 500, tReceived: 1000 })];
    // With the first retry delay declared (1 min), so that a missing retry is evidence at all.
    const declared = { webhooks: { receiverUrl: 'http://127.0.0.1:2/hook', wired: true, failShare: 0.2, ackTimeoutMs: 10_000, retryWithinMs: 60_000 } };
    const complete = await judgeOne('failed-delivery-retried', [...failed(), endRec({ tEnd: 600_000 })], declared);
    expect(complete.status).toBe('fail');
    resetSeq();
    const cut = await judgeOne('failed-delivery-retried', [...failed(), endRec({ tEnd: 600_000, complete: false, reason: 'interrupted' })], declared);
    expect(cut.violations).toBe(0);
  });
});

describe('WH-9 with a declared first retry delay (--webhook-retry-within)', () => {
  const hooks = (retryWithinMs?: number) => ({ webhooks: { receiverUrl: 'http://127.0.0.1:2/hook', wired: true, failShare: 0.2, ackTimeoutMs: 10_000, ...(retryWithinMs !== undefined ? { retryWithinMs } : {}) } });
  const failedAt1s = () => [webhook({ eventId: 'evt_x', answered: 500, tReceived: 1000 })];

  it('a failure not retried is judged only once the run went on past the declared delay', async () => {
    // Declared 1 h: 10 minutes without a retry is no evidence (a service may first retry after an hour).
    const early = await judgeOne('failed-delivery-retried', [...failedAt1s(), endRec({ tEnd: 600_000 })], hooks(3_600_000));
    expect(early.violations).toBe(0);
    expect(early.status).toBe('not-exercised');
    expect(early.reason).toMatch(/--webhook-retry-within/);
    resetSeq();
    // Declared 1 min: 10 minutes without a retry is a violation.
    const late = await judgeOne('failed-delivery-retried', [...failedAt1s(), endRec({ tEnd: 600_000 })], hooks(60_000));
    expect(late.status).toBe('fail');
    expect(late.examples[0].message).toMatch(/evt_x failed \(500\) and was not retried/);
    // Declared: no hint to declare it.
    expect(late.examples[0].message).not.toMatch(/declare it/);
  });

  it('undeclared, and no event retried at all: a missing retry is no evidence (the service may retry after the run); not exercised, saying how to judge it', async () => {
    const r = await judgeOne('failed-delivery-retried', [...failedAt1s(), endRec({ tEnd: 1000 + 3_600_000 })], hooks());
    expect(r.violations).toBe(0);
    expect(r.status).toBe('not-exercised');
    expect(r.reason).toMatch(/1 failed delivery was not retried .* no event was retried at all; the spec gives no first retry delay, .*declare the service's with --webhook-retry-within/);
  });

  it('undeclared, with another event retried: not retried within twice that retry is a violation, with the hint', async () => {
    const recs = [...attempts('evt_fast', at(0, [2000])), webhook({ eventId: 'evt_slow', answered: 500, tReceived: 5000 }), endRec({ tEnd: 5000 + 2 * 2000 + 10_000 + 1 })];
    const r = await judgeOne('failed-delivery-retried', recs, hooks());
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/evt_slow failed \(500\) and was not retried.*declare it with --webhook-retry-within/);
  });

  it('a declared delay replaces the guess from other events: a fast retry of one event does not shorten the wait for another', async () => {
    const recs = () => [...attempts('evt_fast', at(0, [250])), webhook({ eventId: 'evt_slow', answered: 500, tReceived: 1000 }), endRec({ tEnd: 60_000 })];
    // Undeclared: twice the 250 ms first retry seen, plus the ack time, has long passed.
    expect((await judgeOne('failed-delivery-retried', recs(), hooks())).status).toBe('fail');
    resetSeq();
    // Declared 5 min: the slow event still has time.
    const declared = await judgeOne('failed-delivery-retried', recs(), hooks(300_000));
    expect(declared.violations).toBe(0);
    expect(declared.status).toBe('pass');
  });
});
