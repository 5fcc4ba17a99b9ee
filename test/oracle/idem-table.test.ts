/**
 * The ledger's idempotent requests as rows of IdemTable (src/oracle/lib/idem-table.ts): what a
 * view reads back is what was added, and the ledger's tuples keep their order (arrival order,
 * then by start once walked), whichever of its ways a check asks by.
 */
import { describe, expect, it } from 'vitest';
import { IdemTable, type IdemRare, type IdemRequest } from '../../src/oracle/lib/idem-table.ts';
import { Ledger } from '../../src/oracle/ledger.ts';
import { seededRandom } from '../../src/spec/random.ts';
import { K, create, resetSeq, runRec, withPagesOnDisk } from './fixtures.ts';

const FIELDS = ['seq', 'key', 'scope', 'idemKey', 'digest', 'tStart', 'tEnd', 'status', 'code', 'type', 'requestId', 'objectId', 'refundPath', 'attempt', 'merchantReference', 'badInput', 'group', 'errorSig'] as const;
const plain = (r: IdemRequest) => Object.fromEntries(FIELDS.map((f) => [f, r[f]]));

describe('IdemTable', () => {
  it('reads back every field as added, across pages, and sorts rows by start then seq', () => {
    const rnd = seededRandom(5);
    const table = new IdemTable();
    const model: ReturnType<typeof plain>[] = [];
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    for (let n = 0; n < 9_000; n++) {
      // Attempts the marks hold, and ones they cannot (too large, not whole) kept with the rare fields.
      const attempts = [0, 1, 2, 7, 2 ** 28 - 1, 2 ** 28, 1.5];
      const marksOnly = rnd() < 0.2;
      const rare: IdemRare | undefined = marksOnly
        ? { code: null, type: null, requestId: undefined, refundPath: pick([undefined, 'payment', 'refunds'] as const), merchantReference: undefined, badInput: rnd() < 0.5, group: undefined, errorSig: undefined, attempt: pick(attempts) }
        : rnd() < 0.3 ? { code: pick([null, 'idempotency_key_in_use']), type: pick([null, 'idempotency_error']), requestId: pick([undefined, `req_${n}`]), refundPath: pick([undefined, 'payment', 'refunds'] as const), merchantReference: pick([undefined, null, 'ref', { a: 1 }]), badInput: rnd() < 0.5, group: pick([undefined, 'idem-race']), errorSig: pick([undefined, '409\u0000x']), attempt: pick(attempts) } : undefined;
      const r = {
        seq: n + (n % 3) * 2 ** 33,
        key: pick([K.test, K.live, 'merchant_b:test …0003']),
        scope: pick(['payment_create', 'hosted_create', 'refund_create']),
        idemKey: `idem-${Math.floor(rnd() * 3000)}`,
        digest: pick([undefined, 'd1', 'd2']),
        // Equal starts are common (one clock tick): the tie goes by seq.
        tStart: Math.floor(rnd() * 500) / 4,
        tEnd: rnd() * 1e6,
        status: pick([0, 201, 409, 429, 503]),
        objectId: pick([undefined, `pay_${n}`]),
      };
      const row = table.add(r.seq, r.key, r.scope, r.idemKey, r.digest, r.tStart, r.tEnd, r.status, r.objectId, rare);
      expect(row).toBe(n);
      model.push({ ...r, code: rare?.code ?? null, type: rare?.type ?? null, requestId: rare?.requestId, refundPath: rare?.refundPath, attempt: rare?.attempt ?? 0, merchantReference: rare?.merchantReference, badInput: rare?.badInput ?? false, group: rare?.group, errorSig: rare?.errorSig });
    }
    expect(table.size).toBe(model.length);
    for (let r = 0; r < model.length; r++) expect(plain(table.at(r))).toEqual(model[r]);
    const rows = model.map((_, i) => i).reverse();
    table.sortRows(rows);
    const want = model.map((m, i) => ({ m, i })).sort((a, b) => (a.m.tStart as number) - (b.m.tStart as number) || (a.m.seq as number) - (b.m.seq as number)).map((x) => x.i);
    expect(rows).toEqual(want);
  });
});

describe('the ledger\'s idempotency tuples', () => {
  it('gives a tuple in arrival order while the run goes on and sorted by start once walked, also for the tuple just added to', () => {
    resetSeq();
    const ledger = new Ledger(new Map());
    ledger.observe(runRec());
    // Three requests under one key, answered out of start order, and one under another key.
    const recs = [create({ t: 300, idemKey: 'k1', id: 'pay_a' }), create({ t: 100, idemKey: 'k1', id: 'pay_a' }), create({ t: 50, idemKey: 'k2', id: 'pay_b' }), create({ t: 200, idemKey: 'k1', id: 'pay_a' })];
    for (const r of recs) ledger.observe(r);
    const starts = (rs: readonly IdemRequest[] | undefined) => rs?.map((r) => r.tStart);
    expect(starts(ledger.idemRequests(K.test, 'payment_create', 'k1'))).toEqual([300, 100, 200]);
    expect(starts(ledger.idemRequests(K.test, 'payment_create', 'k2'))).toEqual([50]);
    expect([...ledger.idemTuples()].map(starts)).toEqual([[100, 200, 300], [50]]);
    // The tuple the last record added to is now asked for again: sorted too.
    expect(starts(ledger.idemRequests(K.test, 'payment_create', 'k1'))).toEqual([100, 200, 300]);
    expect([...ledger.idemRepeatedTuples()].map(starts)).toEqual([[100, 200, 300]]);
    expect(ledger.idemRequests(K.test, 'payment_create', 'k3')).toBeUndefined();
    // A value used under two operations is shared; its tuples come in walk order.
    ledger.observe(create({ t: 400, idemKey: 'k2', id: 'pay_c', op: 'create_hpp' }));
    const shared = [...ledger.idemSharedValues()].find((t) => t[0][0].idemKey === 'k2');
    expect(shared?.map((t) => t.map((r) => `${r.scope}@${r.tStart}`))).toEqual([['payment_create@50'], ['hosted_create@400']]);
  });
});

describe('the ledger\'s shared Idempotency-Key values', () => {
  // What idemSharedValues gave when it was a Map from every value to its tuples: each value used in
  // more than one tuple, its tuples in walk order, the values in the order each was met a second time.
  function byMap(ledger: Ledger): string[][] {
    const seen = new Map<string, IdemRequest[]>();
    const shared = new Map<string, IdemRequest[][]>();
    for (const t of ledger.idemTuples()) {
      const v = t[0].idemKey;
      const prev = seen.get(v);
      if (prev === undefined) seen.set(v, t);
      else if (shared.has(v)) shared.get(v)!.push(t);
      else shared.set(v, [prev, t]);
    }
    return [...shared.values()].map((ts) => ts.map((t) => t.map((r) => `${r.key}/${r.scope}/${r.idemKey}@${r.seq}`).join(',')));
  }
  const views = (ledger: Ledger) => [...ledger.idemSharedValues()].map((ts) => ts.map((t) => t.map((r) => `${r.key}/${r.scope}/${r.idemKey}@${r.seq}`).join(',')));

  for (const tiny of [false, true]) {
    it(`gives each shared value's tuples, as a Map of every value did, values with one hash told apart${tiny ? ' (pages and indexes on disk)' : ''}`, async () => {
      const run = () => {
        resetSeq();
        const rnd = seededRandom(11);
        const ledger = new Ledger(new Map());
        ledger.observe(runRec());
        const keys = [K.test, 'merchant_b:test …0003'];
        const ops = ['create', 'create_hpp'] as const;
        // pay_10unw and pay_1xwba share a 32-bit FNV-1a hash: both are shared values here, in one hash run.
        const values = ['pay_10unw', 'pay_1xwba', ...Array.from({ length: 400 }, (_, i) => `idem-${i}`)];
        for (let n = 0; n < 1_500; n++) {
          const idemKey = values[n < 6 ? n % 2 : Math.floor(rnd() * values.length)];
          ledger.observe(create({ t: n, key: keys[Math.floor(rnd() * 2)], op: ops[Math.floor(rnd() * 2)], idemKey, id: `pay_${n}` }));
        }
        return ledger;
      };
      const ledger = tiny ? await withPagesOnDisk(run) : run();
      const want = byMap(ledger);
      expect(want.length).toBeGreaterThan(50);
      expect(want.some((g) => g[0].includes('/pay_10unw@')) && want.some((g) => g[0].includes('/pay_1xwba@'))).toBe(true);
      expect(views(ledger)).toEqual(want);
      // Asked again (a later check's conclusion), the same.
      expect(views(ledger)).toEqual(want);
    });
  }
});

describe('the ledger\'s payments by key', () => {
  it('lists each key\'s payments by when their create was answered, ties in the order they were registered', () => {
    resetSeq();
    const rnd = seededRandom(3);
    const ledger = new Ledger(new Map());
    ledger.observe(runRec());
    const keys = [K.test, K.test2, K.other];
    for (let n = 0; n < 600; n++) {
      // Answers that end out of start order, and many ending at the same millisecond.
      ledger.observe(create({ t: n, dur: Math.floor(rnd() * 40) * 5, key: keys[Math.floor(rnd() * 3)], id: `pay_${n}`, idemKey: `k${n}` }));
    }
    const want = new Map<string, string[]>();
    const all = [...ledger.payments.values()].map((f, i) => ({ key: f.key, id: f.id, tEnd: f.tEnd, i }));
    for (const key of new Set(all.map((a) => a.key))) {
      want.set(key, all.filter((a) => a.key === key).sort((a, b) => a.tEnd - b.tEnd || a.i - b.i).map((a) => a.id));
    }
    const got = new Map([...ledger.paymentsByKey()].map(([key, l]) => [key, [...l].map((f) => f.id)]));
    expect([...got.keys()]).toEqual([...want.keys()]);
    expect(got).toEqual(want);
    const ties = all.filter((a, _, xs) => xs.some((b) => b !== a && b.key === a.key && b.tEnd === a.tEnd));
    expect(ties.length).toBeGreaterThan(50);
  });
});
