/**
 * WH-4 and WH-5 against a deployment paystorm did not start: each merchant sets its webhook
 * endpoint in its own portal, so a merchant none of whose payments got any event may simply not
 * point at paystorm's receiver. Only merchants with at least one event are judged; the others are
 * named in a warning. On the embedded target paystorm wires every merchant, so all are judged.
 * Found in review: a second merchant's payments (mixed load, SEC-1 probes) all read as missing events.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import { create, endRec, judgeOne, K, pay, resetSeq, retrieve, runRec, webhook, withPagesOnDisk } from './fixtures.ts';

beforeEach(() => resetSeq());

const M1 = 'pay_00000000-0000-4000-8000-0000000000a1';
const M1b = 'pay_00000000-0000-4000-8000-0000000000a2';
const M2 = 'pay_00000000-0000-4000-8000-0000000000b1';
const records = () => [
  create({ id: M1, t: 0 }),
  create({ id: M1b, t: 0 }),
  create({ id: M2, t: 0, key: K.other }),
  retrieve(M1, { t: 500, p: { status: 'succeeded' } }),
  retrieve(M1b, { t: 500, p: { status: 'succeeded' } }),
  retrieve(M2, { t: 500, key: K.other, p: { status: 'succeeded' } }),
  webhook({ tReceived: 900, type: 'payment.succeeded', eventId: 'evt_1', payment: pay({ id: M1, status: 'succeeded' }) }),
  endRec({ tEnd: 120_000 }),
];
const run = (embedded: boolean) => {
  const r = runRec();
  return { ...r, target: { ...r.target, embedded } };
};

describe('WH-4 (terminal-payment-event) per merchant', () => {
  it('remote: a merchant with no event at all is not judged, and a warning names it; a wired merchant missing one event still fails', async () => {
    const r = await judgeOne('terminal-payment-event', [run(false), ...records()]);
    expect(r.examples.map((e) => e.message)).toEqual([expect.stringMatching(new RegExp(`payment ${M1b} was seen succeeded .* no payment.succeeded event arrived`))]);
    expect(r.checked).toBe(2);
    resetSeq();
    const { findings } = await judge([run(false), ...records()], { only: ['terminal-payment-event'] });
    expect(findings.find((x) => x.id === 'webhook-merchants-without-events')?.text).toMatch(/^No webhook event arrived for any payment of m2 \(1 terminal payments\), so WH-4 was not judged for them/);
  });

  it('embedded: paystorm wired every merchant, so the second merchant is judged too', async () => {
    const r = await judgeOne('terminal-payment-event', [run(true), ...records()]);
    expect(r.violations).toBe(2);
  });
});

describe('WH-4 (terminal-payment-event): the event types noted per payment in paged columns', () => {
  const id = (i: number) => `pay_00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  // Payment i succeeded (even) or failed (odd). Events: each its matching type, except 3 (none),
  // 4 (payment.failed only), 6 (payment.failed, then payment.succeeded) and 8 (its type twice).
  const history = () => {
    resetSeq();
    const n = 12;
    const recs = [];
    for (let i = 0; i < n; i++) recs.push(create({ id: id(i), t: i }));
    for (let i = 0; i < n; i++) recs.push(retrieve(id(i), { t: 500 + i, p: { status: i % 2 === 0 ? 'succeeded' : 'failed' } }));
    const ev = (i: number, type: 'payment.succeeded' | 'payment.failed') => webhook({ tReceived: 900 + recs.length, type, eventId: `evt_${recs.length}`, payment: pay({ id: id(i), status: type === 'payment.succeeded' ? 'succeeded' : 'failed' }) });
    for (let i = 0; i < n; i++) {
      if (i === 3) continue;
      if (i === 4 || i === 6) recs.push(ev(i, 'payment.failed'));
      if (i !== 4) recs.push(ev(i, i % 2 === 0 ? 'payment.succeeded' : 'payment.failed'));
      if (i === 8) recs.push(ev(i, 'payment.succeeded'));
    }
    recs.push(endRec({ tEnd: 120_000 }));
    return recs;
  };

  it('finds a payment\'s event among the types it was sent, first or later', async () => {
    const r = await judgeOne('terminal-payment-event', history());
    expect(r.checked).toBe(12);
    expect(r.examples.map((e) => e.paymentIds![0])).toEqual([id(3), id(4)]);
    expect(r.examples[1].message).toContain('no payment.succeeded event arrived');
  });

  it('gives the same verdict with the notes on pages of two rows on disk', async () => {
    const want = await judgeOne('terminal-payment-event', history());
    expect(await withPagesOnDisk(() => judgeOne('terminal-payment-event', history()))).toEqual(want);
  });
});
