/**
 * A decline seen only on a list page: the canonical list page keeps ids and statuses, not
 * failure codes, so the payment's code is unknown there, not null. A run cut short (a real k6
 * VU interrupted mid-poll, a capped run) may see a decline card's payment failed only on
 * another VU's list page; judging the missing code as wrong made SM-3 and TEST-1 fail a
 * conforming service. The status is still judged, and a code a full representation showed is
 * judged as before.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, endRec, ex, judgeOne, list, resetSeq, retrieve } from './fixtures.ts';

beforeEach(() => resetSeq());

const P = 'pay_00000000-0000-4000-8000-0000000000d1';
const declineCreate = () => create({ id: P, sent: { cardOutcome: 'do_not_honor' } });
const failedOnList = (t: number) => list([P], { t, statuses: ['failed'] });

describe('a decline card\'s failure seen only on a list page', () => {
  for (const id of ['sandbox-card-outcome', 'sandbox-decline-async']) {
    it(`${id}: failed with an unseen code is judged on its status and holds`, async () => {
      const r = await judgeOne(id, [declineCreate(), failedOnList(100), endRec()]);
      expect(r.violations, JSON.stringify(r.examples)).toBe(0);
      expect(r.status).toBe('pass');
    });

    it(`${id}: the wrong status on a list page still fails`, async () => {
      const r = await judgeOne(id, [declineCreate(), list([P], { t: 100, statuses: ['succeeded'] }), endRec()]);
      expect(r.violations).toBe(1);
    });

    it(`${id}: a wrong code a full representation showed still fails, also when a list page saw the failure first`, async () => {
      const r = await judgeOne(id, [declineCreate(), failedOnList(100), retrieve(P, { t: 200, p: { status: 'failed', failureCode: 'generic_decline' } }), endRec()]);
      expect(r.violations).toBe(1);
      expect(r.examples[0].message).toMatch(/generic_decline/);
    });
  }

  it('three-ds-outcome: a failed 3DS completion whose payment failed with an unseen code is judged on its status', async () => {
    const threeDs = { status: 'requires_action' as const, nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://x/3ds' } };
    const done = (status: string) => [
      create({ id: P, p: threeDs }),
      ex({ op: 'complete_3ds', status: 303, t: 100, sent: { paymentId: P, threeDsResult: 'fail' } }),
      list([P], { t: 200, statuses: [status] }),
      endRec(),
    ];
    expect((await judgeOne('three-ds-outcome', done('failed'))).violations).toBe(0);
    expect((await judgeOne('three-ds-outcome', done('succeeded'))).violations).toBe(1);
  });
});
