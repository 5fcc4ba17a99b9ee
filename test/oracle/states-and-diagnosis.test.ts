/**
 * States seen by polling (a short-lived state may fall between two polls), SM-1 after a customer's
 * action, LIST-2 across the pages of a walk, and the processor-unreachable diagnosis of SM-6.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import { create, ex, fault, judgeOne, list, resetSeq, retrieve, runRec, webhook, pay } from './fixtures.ts';

beforeEach(() => resetSeq());

const P = 'pay_00000000-0000-4000-8000-000000000001';
const Q = 'pay_00000000-0000-4000-8000-000000000002';
const threeDs = { status: 'requires_action' as const, nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://x/3ds' } };
const hostedPage = { status: 'requires_action' as const, hosted: true, nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp' } };

describe('a 3DS challenge that expired before the first poll', () => {
  // pending at create, expired at the first poll: requires_action was never seen, but expired is
  // reached only from it, so the challenge happened.
  const unseenChallenge = () => [
    create({ id: P, sent: { cardOutcome: 'three_ds_challenge' } }),
    retrieve(P, { t: 100, p: { status: 'expired', failureCode: 'three_d_secure_timeout' } }),
  ];
  it('keeps SM-3 (sandbox-card-outcome): expired implies the challenge', async () => {
    const r = await judgeOne('sandbox-card-outcome', unseenChallenge());
    expect(r.examples.map((e) => e.message)).toEqual([]);
    expect(r.status).toBe('pass');
  });
  it('still fails SM-3 when the 3DS card succeeded with no challenge at all', async () => {
    const r = await judgeOne('sandbox-card-outcome', [create({ id: P, sent: { cardOutcome: 'three_ds_challenge' } }), retrieve(P, { t: 100, p: { status: 'succeeded' } })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/without a challenge/);
  });
  it('exercises SM-4 (three-ds-outcome) as an abandoned challenge that expired', async () => {
    const r = await judgeOne('three-ds-outcome', unseenChallenge());
    expect(r.status).toBe('pass');
    expect(r.checked).toBe(1);
  });
  it('keeps SM-1 (pending -> expired is a move to a terminal status)', async () => {
    const r = await judgeOne('status-transitions', unseenChallenge());
    expect(r.status).toBe('pass');
  });
  it('keeps TEST-3 (hosted-test-cards): a hosted 3DS payment that expired right after the form', async () => {
    const r = await judgeOne('hosted-test-cards', [
      create({ op: 'create_hpp', id: Q, p: hostedPage }),
      ex({ op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: Q, cardOutcome: 'three_ds_challenge' } }),
      retrieve(Q, { t: 300, p: { status: 'expired', hosted: true } }),
    ]);
    expect(r.examples.map((e) => e.message)).toEqual([]);
    expect(r.status).toBe('pass');
  });
  it('keeps SM-5 (hosted-3ds-stays-requires-action): expiring meanwhile is allowed', async () => {
    const r = await judgeOne('hosted-3ds-stays-requires-action', [
      create({ op: 'create_hpp', id: Q, p: hostedPage }),
      ex({ op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: Q, cardOutcome: 'three_ds_challenge' } }),
      retrieve(Q, { t: 300, p: { status: 'expired', hosted: true } }),
    ]);
    expect(r.status).toBe('pass');
  });
});

describe('SM-1: requires_action -> pending', () => {
  it('is allowed after the customer completed the 3DS challenge (the issuer answers asynchronously)', async () => {
    const r = await judgeOne('status-transitions', [
      create({ id: P, p: threeDs }),
      ex({ op: 'complete_3ds', status: 303, t: 100, sent: { paymentId: P, threeDsResult: 'success' } }),
      retrieve(P, { t: 200, p: { status: 'pending' } }),
      retrieve(P, { t: 300, p: { status: 'succeeded' } }),
    ]);
    expect(r.examples.map((e) => e.message)).toEqual([]);
    expect(r.status).toBe('pass');
  });
  it('is allowed after a hosted page was submitted (presentation A: PROCESSING)', async () => {
    const r = await judgeOne('status-transitions', [
      create({ op: 'create_hpp', id: Q, p: { ...hostedPage, presentation: 'A' } }),
      ex({ op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: Q, cardOutcome: 'do_not_honor' } }),
      retrieve(Q, { t: 200, p: { status: 'processing', presentation: 'A', hosted: true } }),
      retrieve(Q, { t: 300, p: { status: 'failed', failureCode: 'do_not_honor', presentation: 'A', hosted: true } }),
    ]);
    expect(r.status).toBe('pass');
  });
  it('still fails when nothing but the clock acted (no customer action)', async () => {
    const r = await judgeOne('status-transitions', [create({ id: P, p: threeDs }), retrieve(P, { seq: 7, t: 200, p: { status: 'pending' } })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/requires_action -> pending/);
  });
  it('still fails when the pending was seen before the customer acted', async () => {
    const r = await judgeOne('status-transitions', [
      create({ id: P, p: threeDs }),
      retrieve(P, { t: 100, p: { status: 'pending' } }),
      ex({ op: 'complete_3ds', status: 303, t: 500, sent: { paymentId: P, threeDsResult: 'success' } }),
    ]);
    expect(r.status).toBe('fail');
  });
});

describe('LIST-2 across the pages of a walk', () => {
  const A = 'pay_a';
  const B = 'pay_b';
  const C = 'pay_c';
  const D = 'pay_d';
  it('passes a walk whose later page is older than its cursor (ties allowed)', async () => {
    const r = await judgeOne('list-newest-first', [
      list([D, C], { created: [40, 30], hasMore: true, group: 'w' }),
      list([B, A], { t: 100, created: [30, 10], group: 'w', sent: { list: { startingAfter: C } } }),
    ]);
    expect(r.status).toBe('pass');
    expect(r.checked).toBe(3); // two pages, and the second page against its cursor
  });
  it('fails a walk whose every page is sorted but whose second page holds a newer payment', async () => {
    const r = await judgeOne('list-newest-first', [
      list([D, C], { created: [40, 30], hasMore: true, group: 'w' }),
      list([B, A], { seq: 9, t: 100, created: [35, 10], group: 'w', sent: { list: { startingAfter: C } } }),
    ]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([9]);
    expect(r.examples[0].message).toMatch(/page after cursor pay_c \(created 30\) holds pay_b, created later \(35\)/);
  });
  it('judges the cursor only against the same key\'s page', async () => {
    const r = await judgeOne('list-newest-first', [
      list([C], { created: [30], key: 'm1/test/…bbbb' }),
      list([B], { t: 100, created: [35], sent: { list: { startingAfter: C } } }),
    ]);
    expect(r.status).not.toBe('fail');
  });
});

describe('processor-unreachable (SM-6 diagnosis)', () => {
  const stuck = (n: number) => Array.from({ length: n }, (_, i) => {
    const id = `pay_stuck_${i}`;
    return [create({ id, t: i * 10, sent: { cardOutcome: 'succeeds' } }), retrieve(id, { t: 8000 + i * 10 })];
  }).flat();
  it('says in one sentence that the processor looks unreachable when most payments never left pending', async () => {
    const { invariants, findings } = await judge([runRec(), ...stuck(6), create({ id: P, t: 100 }), retrieve(P, { t: 500, p: { status: 'succeeded' } })], { only: ['settles-within-bound'] });
    expect(invariants[0].status).toBe('fail');
    const f = findings.find((x) => x.id === 'processor-unreachable');
    expect(f).toBeDefined();
    expect(f!.level).toBe('warning');
    expect(f!.text).toBe("6 of 7 payments never left pending and no fault was injected: the service's upstream processor looks unreachable or stalled.");
    expect(f!.rules).toEqual(['SM-6']);
    expect(f!.evidence?.paymentIds?.length).toBe(5);
  });
  it('says nothing when only a few payments were slow, or a fault covered them', async () => {
    const few = await judge([runRec(), ...stuck(2), ...Array.from({ length: 5 }, (_, i) => [create({ id: `pay_ok_${i}` }), retrieve(`pay_ok_${i}`, { t: 500, p: { status: 'succeeded' } })]).flat()], { only: ['settles-within-bound'] });
    expect(few.invariants[0].status).toBe('fail');
    expect(few.findings.find((x) => x.id === 'processor-unreachable')).toBeUndefined();
    const faulted = await judge([runRec(), ...stuck(6), fault({ tStart: 1000, tEnd: 2000 })], { only: ['settles-within-bound'] });
    expect(faulted.findings.find((x) => x.id === 'processor-unreachable')).toBeUndefined();
  });
});

describe('ghost objects beyond the answers (idem-no-ghost-object)', () => {
  const N = 'paystorm idempotency replay 6f1c2a9e-3b7d-4e21-9c0a-5d8e7f6a1b2c';
  it('fails a sequential same-body replay that made a second payment the answer hid (IDEM-3), seen by a webhook', async () => {
    const r = await judgeOne('idem-no-ghost-object', [
      create({ seq: 1, idemKey: 'k', id: P, sent: { description: N } }),
      create({ seq: 2, idemKey: 'k', id: P, t: 500, sent: { description: N } }),
      webhook({ seq: 3, tReceived: 900, payment: pay({ id: Q, status: 'succeeded', description: N }) }),
    ]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].paymentIds).toEqual([P, Q]);
    expect(r.examples[0].seqs).toEqual(expect.arrayContaining([1, 2, 3]));
  });
  it('does not judge a description without a nonce, or one sent without a key twice', async () => {
    const plain = await judgeOne('idem-no-ghost-object', [
      create({ idemKey: 'k', id: P, sent: { description: 'paystorm mixed' } }),
      list([Q, P], { t: 500, descriptions: ['paystorm mixed', 'paystorm mixed'] }),
    ]);
    expect(plain.status).toBe('not-exercised');
    const unkeyed = await judgeOne('idem-no-ghost-object', [
      create({ idemKey: undefined, id: P, sent: { description: N } }),
      create({ idemKey: undefined, id: Q, t: 100, sent: { description: N } }),
      list([Q, P], { t: 500, descriptions: [N, N] }),
    ]);
    expect(unkeyed.status).toBe('not-exercised');
  });
  it('reads histories written before list records carried descriptions', async () => {
    const r = await judgeOne('idem-no-ghost-object', [create({ idemKey: 'k', id: P, sent: { description: N } }), list([Q, P], { t: 500 })]);
    expect(r.status).toBe('not-exercised');
  });
});
