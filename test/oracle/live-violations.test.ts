/**
 * The live verdict: violations a check confirms while records are read reach the judge's
 * `onViolation` at once (every one of them in the final count); violations found only at the end
 * are not told. IDEM-6 (two objects under one Idempotency-Key) is told when the second object
 * comes back, while its count and evidence stay the end's.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHistory } from '../../src/history/index.ts';
import { check } from '../../src/oracle/check.ts';
import type { Evidence } from '../../src/spec/index.ts';
import { judge, INVARIANTS, type Invariant } from '../../src/oracle/index.ts';
import { Findings } from '../../src/oracle/lib/findings.ts';
import { create, endRec, resetSeq, retrieve, runRec } from './fixtures.ts';

describe('judge onViolation', () => {
  it('tells violations counted while a record is judged, with the invariant, and not those counted at the end', async () => {
    const onRecordCheck: Invariant = {
      id: 'live-one',
      title: 'counts a violation per retrieve',
      rules: ['PAY-1'],
      create() {
        const f = new Findings();
        return { onRecord: (r) => (r.kind === 'exchange' && r.op === 'retrieve' ? f.violation({ message: `seq ${r.seq}` }) : undefined), finish: () => f.outcome('none') };
      },
    };
    const finishCheck: Invariant = {
      id: 'end-one',
      title: 'counts a violation at the end',
      rules: ['PAY-2'],
      create() {
        const f = new Findings();
        return { finish: () => (f.violation({ message: 'at the end' }), f.outcome('none')) };
      },
    };
    resetSeq();
    const told: { id: string; rules: string[]; e: Evidence; before: number }[] = [];
    let read = 0;
    const records = [runRec(), create({ id: 'pay_1' }), retrieve('pay_1'), retrieve('pay_1'), endRec()];
    const j = await judge(
      (function* () {
        for (const r of records) {
          read++;
          yield r;
        }
      })(),
      { invariants: [onRecordCheck, finishCheck], onViolation: (inv, e) => told.push({ id: inv.id, rules: [...inv.rules], e, before: read }) },
    );
    expect(told.map((t) => [t.id, t.rules, t.e.message])).toEqual([
      ['live-one', ['PAY-1'], 'seq 2'],
      ['live-one', ['PAY-1'], 'seq 3'],
    ]);
    // Told while reading: the second retrieve was told before the end record was read.
    expect(told[0].before).toBe(3);
    expect(j.invariants.find((i) => i.id === 'live-one')!.violations).toBe(2);
    expect(j.invariants.find((i) => i.id === 'end-one')!.violations).toBe(1);
  });
});

describe('IDEM-6 live', () => {
  const idem = INVARIANTS.find((i) => i.id === 'idem-single-object')!;

  it('tells a second object under one key when it comes back, once per key, and counts it at the end as before', async () => {
    resetSeq();
    const told: { e: Evidence; before: number }[] = [];
    let read = 0;
    const records = [
      runRec(),
      create({ idemKey: 'k', id: 'pay_a', tStart: 0, tEnd: 50 }),
      create({ idemKey: 'k', id: 'pay_a', tStart: 10, tEnd: 60 }),
      create({ idemKey: 'k', id: 'pay_b', tStart: 20, tEnd: 70 }),
      create({ idemKey: 'k', id: 'pay_c', tStart: 30, tEnd: 80 }),
      create({ idemKey: 'other', id: 'pay_d', tStart: 100, tEnd: 150 }),
      endRec(),
    ];
    const j = await judge(
      (function* () {
        for (const r of records) {
          read++;
          yield r;
        }
      })(),
      { invariants: [idem], onViolation: (_inv, e) => told.push({ e, before: read }) },
    );
    expect(told).toHaveLength(1);
    expect(told[0].before).toBe(4); // the record bringing pay_b back
    expect(told[0].e.paymentIds).toEqual(['pay_a', 'pay_b']);
    expect(told[0].e.idemKeys).toEqual(['k']);
    const r = j.invariants[0];
    expect(r.status).toBe('fail');
    expect(r.violations).toBe(1);
    expect(r.examples[0].message).toMatch(/^3 objects were created under one Idempotency-Key: pay_a, pay_b, pay_c$/);
  });

  it('tells nothing for replays of one object', async () => {
    resetSeq();
    const told: Evidence[] = [];
    await judge([runRec(), create({ idemKey: 'k', id: 'pay_a' }), create({ idemKey: 'k', id: 'pay_a', tStart: 5 }), endRec()], { invariants: [idem], onViolation: (_i, e) => told.push(e) });
    expect(told).toEqual([]);
  });
});

describe('live violations on the committed corpus', () => {
  // Every violation told live is one the end counts, under the invariant it names.
  const SAMPLE = join(import.meta.dirname, '../fixtures/oracle-corpus');
  const names = readdirSync(SAMPLE).filter((n) => existsSync(join(SAMPLE, n, 'history.bin.gz')));
  it('tells no invariant more violations than its final count, and tells the seeded double charge', { timeout: 300_000 }, async () => {
    let toldAny = 0;
    for (const name of names) {
      const told = new Map<string, number>();
      const { judgement } = await check(readHistory(join(SAMPLE, name, 'history.bin.gz'), { onWarning: () => {} }), { onViolation: (inv) => told.set(inv.id, (told.get(inv.id) ?? 0) + 1) });
      for (const [id, n] of told) {
        const final = judgement.invariants.find((i) => i.id === id)!;
        expect(final.violations, `${name}: ${id}`).toBeGreaterThanOrEqual(n);
        toldAny += n;
      }
      if (name === 'bug-idem-no-inflight-lock') expect(told.get('idem-single-object'), name).toBeGreaterThan(0);
    }
    expect(toldAny).toBeGreaterThan(0);
  });
});
