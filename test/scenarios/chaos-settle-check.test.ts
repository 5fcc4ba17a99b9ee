/**
 * FT-2 false pass (review): the chaos phase looked at its payments after the heal for
 * max(settleWaitMs, healMs), 30 s x time scale whatever the run's settle bound, and FT-2 can only
 * convict a payment seen pending more than the bound after the heal. With --time-scale 0.1 on the
 * embedded target (bound 6 s) it looked 5 s past the heal; with --settle-bound 60s on a real target,
 * 32 s: a payment stuck for ever was never judged. The phase now polls until past the bound after
 * the later of the last heal and each payment's creation, then GETs every payment still unsettled
 * once more (scenarios/lib/settle-check.ts); refunds the load left pending get the same look.
 */
import { performance } from 'node:perf_hooks';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ExchangeResult, KeyHandle, RetrieveOptions, ScenarioContext } from '../../src/spec/scenario.ts';
import type { CanonicalPayment } from '../../src/spec/payment.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import type { Api } from '../../scenarios/lib/common.ts';
import { chaosPlan, SHORT } from '../../scenarios/chaos.ts';
import { pastBoundAt, settleBoundOf, settleCheck } from '../../scenarios/lib/settle-check.ts';
import { create, fault, judgeOne, pay, refundObj, resetSeq, retrieve } from '../oracle/fixtures.ts';

beforeEach(() => resetSeq());

type Target = ScenarioContext['target'];
const embeddedTarget = { url: 'http://127.0.0.1:1', embedded: true, presentation: 'B', rateLimit: { limit: 100, windowMs: 1_000 } } as Target;
const realTarget = { ...embeddedTarget, embedded: false } as Target;

describe('chaos after-heal looks cover the settle bound', () => {
  it('without a declared bound, the CLI default (embedded max(3 s, 60 s x scale), else 30 s) is the one looked past', () => {
    expect(settleBoundOf({ timeScale: 0.05, target: embeddedTarget })).toBe(3_000);
    expect(settleBoundOf({ timeScale: 1, target: realTarget })).toBe(30_000);
    expect(pastBoundAt({ timeScale: 1, settleBoundMs: 60_000, target: realTarget }, 1_000)).toBeGreaterThan(61_000);
  });
});

/** A scenario context on the real clock (run time starts at `origin`), small time scale and bound. */
function fakeCtx(origin: number, bound: number) {
  const base = performance.now() - origin;
  const logs: string[] = [];
  const ctrl = new AbortController();
  let seed = 1;
  const ctx = {
    scenario: 'chaos-short',
    target: embeddedTarget,
    timeScale: 0.01,
    settleBoundMs: bound,
    signal: ctrl.signal,
    now: () => performance.now() - base,
    random: () => ((seed = (seed * 16807) % 2147483647) / 2147483647),
    log: (m: string) => logs.push(m),
  } as unknown as ScenarioContext;
  return { ctx, logs, abort: () => ctrl.abort() };
}

interface Call {
  id: string;
  tStart: number;
  tEnd: number;
  group: string | undefined;
  payment: CanonicalPayment;
}

/** An Api whose GET answers what `view` says for the payment at its n-th look. */
function fakeApi(ctx: ScenarioContext, view: (id: string, n: number) => CanonicalPayment): { api: Api; calls: Call[] } {
  const calls: Call[] = [];
  const seen = new Map<string, number>();
  const api = {
    key: { label: 'm1/test/…aaaa' } as KeyHandle,
    async retrieve(id: string, opts?: RetrieveOptions): Promise<ExchangeResult> {
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      const tStart = ctx.now();
      const payment = view(id, n);
      calls.push({ id, tStart, tEnd: tStart + 1, group: opts?.group, payment });
      return { status: 200, payment } as unknown as ExchangeResult;
    },
  } as unknown as Api;
  return { api, calls };
}

const P = 'pay_00000000-0000-4000-8000-0000000000a7';
const Q = 'pay_00000000-0000-4000-8000-0000000000a8';
const R = 'pay_00000000-0000-4000-8000-0000000000a9';

describe('settleCheck: polls until past the bound after the heal, then looks once more at what is still unsettled', () => {
  it('a payment pending for ever is looked at more than the bound after the heal, and the oracle then convicts it (FT-2)', async () => {
    const heal = 10_000;
    const bound = 300;
    const { ctx } = fakeCtx(heal, bound);
    const { api, calls } = fakeApi(ctx, (id, n) => (id === Q && n >= 3 ? pay({ id, status: 'succeeded' }) : pay({ id, status: 'pending' })));
    // Polls would stop after 50 ms (the phase's old settle wait), long before the bound.
    const r = await settleCheck(ctx, [P, Q].map((id) => ({ api, id, since: heal })), { minWaitMs: 50, group: 'chaos-after-heal', finalGroup: 'chaos-settle-check' });
    expect(r).toEqual({ checked: 2, unsettled: 1 });

    const ofP = calls.filter((c) => c.id === P);
    const lastP = ofP[ofP.length - 1];
    expect(lastP.group).toBe('chaos-settle-check');
    expect(lastP.tStart - heal).toBeGreaterThan(bound * 1.1);
    expect(ofP.length).toBeLessThan(400);
    // The settled one is not looked at again once it showed succeeded.
    const ofQ = calls.filter((c) => c.id === Q);
    expect(ofQ).toHaveLength(3);
    expect(ofQ.every((c) => c.group === 'chaos-after-heal')).toBe(true);

    // What the oracle sees: the phase's looks, as retrievals, after a `down` window that healed at `heal`.
    const recs: HistoryRecord[] = [
      fault({ tStart: 5_000, tEnd: heal }),
      create({ id: P, t: 6_000, sent: { amount: 1000, cardOutcome: 'succeeds' } }),
      create({ id: Q, t: 6_100, sent: { amount: 1000, cardOutcome: 'succeeds' } }),
      ...calls.map((c) => retrieve(c.id, { t: c.tStart, dur: 1, group: c.group, p: c.payment })),
    ];
    const v = await judgeOne('settles-after-heal', recs, { settleBoundMs: bound });
    expect(v.status).toBe('fail');
    expect(v.examples[0].paymentIds).toEqual([P]);
  });

  it('the looks start from the later of the heal and the creation: a payment made after the heal is looked at past the bound after it', async () => {
    const heal = 10_000;
    const bound = 200;
    const { ctx } = fakeCtx(heal, bound);
    const made = heal + 400;
    const { api, calls } = fakeApi(ctx, (id) => pay({ id, status: 'pending' }));
    await settleCheck(ctx, [{ api, id: P, since: made }], { minWaitMs: 20, group: 'g', finalGroup: 'final' });
    expect(calls[calls.length - 1].tStart - made).toBeGreaterThan(bound * 1.1);
  });

  it('a refund left pending is looked at past the bound after the load ended (REF-1), a settled refund not again', async () => {
    const heal = 10_000;
    const bound = 200;
    const { ctx } = fakeCtx(heal, bound);
    const loadEnded = ctx.now() + 300;
    const { api, calls } = fakeApi(ctx, (id) =>
      pay({ id, status: 'succeeded', refunds: [refundObj({ id: `re_${id.slice(-4)}`, paymentId: id, status: id === R ? 'pending' : 'succeeded' })] }),
    );
    const r = await settleCheck(ctx, [R, Q].map((id) => ({ api, id, since: heal })), { minWaitMs: 20, group: 'g', finalGroup: 'final', refundsSince: loadEnded });
    expect(r.unsettled).toBe(1);
    const ofR = calls.filter((c) => c.id === R);
    expect(ofR[ofR.length - 1].group).toBe('final');
    expect(ofR[ofR.length - 1].tStart - loadEnded).toBeGreaterThan(bound * 1.1);
    expect(calls.filter((c) => c.id === Q)).toHaveLength(1);
  });

  it('stops when the run is aborted: no final look', async () => {
    const { ctx, abort } = fakeCtx(10_000, 5_000);
    const { api, calls } = fakeApi(ctx, (id) => pay({ id, status: 'pending' }));
    setTimeout(abort, 100);
    const t0 = performance.now();
    await settleCheck(ctx, [{ api, id: P, since: 10_000 }], { minWaitMs: 20, group: 'g', finalGroup: 'final' });
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(calls.some((c) => c.group === 'final')).toBe(false);
  });
});
