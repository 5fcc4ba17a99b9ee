/**
 * StatusSpans (src/oracle/lib/status-spans.ts) against a plain model that keeps every
 * observation: seeded random observations over more entities than one page of its table holds.
 */
import { describe, expect, it } from 'vitest';
import { StatusSpans } from '../../src/oracle/lib/status-spans.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { seededRandom } from '../../src/spec/random.ts';

const FOUR = ['pending', 'succeeded', 'failed', 'canceled'];
/** More statuses than a row has slots (four): entities that show five or more are kept whole. */
const SEVEN = ['pending', 'processing', 'requires_action', 'succeeded', 'failed', 'expired', 'canceled'];
type S = string;
interface Obs {
  status: S;
  tStart: number;
  tEnd: number;
  seq: number;
}

const rng = seededRandom;

describe('StatusSpans', () => {
  // Seqs are kept in 32 bits until one does not fit: the second case crosses 2^32 half way.
  // With rows shared (the ledger's payments and their spans), other tables give rows to ids this
  // one never sees: those are not its entities, and the pages skip over them.
  // Seven statuses: most entities show four or fewer (their slots), some five or more (kept whole,
  // moved out of their slots mid-run), with the seqs crossing 2^32 after some went whole.
  it.each([
    ['small seqs', 0, false, FOUR],
    ['seqs past 2^32', 2 ** 32 - 20_000, false, FOUR],
    ['rows shared with ids it never sees', 0, true, FOUR],
    ['seven statuses, some entities past the slots', 0, true, SEVEN],
    ['seven statuses, seqs past 2^32', 2 ** 32 - 20_000, false, SEVEN],
  ])('answers every question as a model keeping all observations does, across table pages (%s)', (_, base, shared, STATUSES) => {
    const rnd = rng(7);
    const rows = shared ? new PaymentRows() : undefined;
    const spans = new StatusSpans<S>(STATUSES, rows);
    const firstAdded: string[] = [];
    const model = new Map<string, Obs[]>();
    const ENTITIES = 9_000; // more than two pages of 4,096 rows
    for (let n = 1; n <= 40_000; n++) {
      const seq = base + n;
      const id = `pay_${Math.floor(rnd() * ENTITIES)}`;
      if (rows && rnd() < 0.3) rows.rowOf(`other_${n}`);
      const status = STATUSES[Math.floor(rnd() * STATUSES.length)];
      // Creation-time observations start at -Infinity, as the ledger records them.
      const tStart = rnd() < 0.1 ? -Infinity : rnd() * 1000;
      const tEnd = (Number.isFinite(tStart) ? tStart : 0) + rnd() * 50;
      spans.add(id, status, tStart, tEnd, seq);
      let l = model.get(id);
      if (!l) model.set(id, (l = [])), firstAdded.push(id);
      l.push({ status, tStart, tEnd, seq });
    }
    if (STATUSES.length > 4) {
      // Both kinds of row are there: within the slots, and kept whole.
      const distinct = [...model.values()].map((o) => new Set(o.map((x) => x.status)).size);
      expect(distinct.filter((d) => d > 4).length).toBeGreaterThan(100);
      expect(distinct.filter((d) => d <= 4).length).toBeGreaterThan(100);
    }
    spans.add('pay_x', 'unknown_status', 1, 2, 1); // a status it does not track: ignored
    expect(spans.has('pay_x')).toBe(false);
    expect(spans.size).toBe(model.size);
    expect([...spans.ids()]).toEqual(firstAdded);
    if (rows) {
      expect(rows.size).toBeGreaterThan(model.size + 10_000);
      for (let n = 1; n <= 40_000; n += 97) {
        const r = rows.find(`other_${n}`);
        if (r === undefined) continue;
        expect(spans.has(`other_${n}`)).toBe(false);
        expect(spans.earliestEndAtRow(r, STATUSES)).toBeNull();
        expect(spans.firstEnd(`other_${n}`, 'pending')).toEqual({ t: Infinity, seq: -1 });
      }
      for (const id of firstAdded.slice(0, 200)) expect(spans.earliestEndAtRow(rows.find(id)!, STATUSES)).toEqual(spans.earliestEndOf(id, STATUSES));
    }
    for (const [id, obs] of model) {
      for (const s of STATUSES) {
        const of = obs.filter((o) => o.status === s);
        expect(spans.seen(id, s)).toBe(of.length > 0);
        // Earliest end (first of equal ends wins) and latest start (first of equal starts wins).
        const minEnd = of.reduce<Obs | null>((m, o) => (m === null || o.tEnd < m.tEnd ? o : m), null);
        const maxStart = of.filter((o) => o.tStart > -Infinity).reduce<Obs | null>((m, o) => (m === null || o.tStart > m.tStart ? o : m), null);
        expect(spans.firstEnd(id, s)).toEqual(minEnd ? { t: minEnd.tEnd, seq: minEnd.seq } : { t: Infinity, seq: 0 });
        expect(spans.lastStart(id, s)).toEqual(maxStart ? { t: maxStart.tStart, seq: maxStart.seq } : { t: -Infinity, seq: 0 });
      }
      expect(spans.observed(id)).toEqual(STATUSES.filter((s) => obs.some((o) => o.status === s)));
      const first = obs.reduce((m, o) => (o.tEnd < m.tEnd ? o : m));
      const e = spans.earliestEndOf(id, STATUSES);
      expect(e?.t).toBe(first.tEnd);
      expect(e?.status).toBe(first.status);
      // a certainly preceded b iff some a ended before some b started.
      const pairs = spans.orderedPairs(id).map((p) => `${p.from}>${p.to}`).sort();
      const want: string[] = [];
      for (const a of STATUSES) for (const b of STATUSES) if (a !== b && obs.some((x) => x.status === a && obs.some((y) => y.status === b && x.tEnd < y.tStart))) want.push(`${a}>${b}`);
      expect(pairs).toEqual(want.sort());
    }
    expect(spans.firstEnd('pay_none', 'pending')).toEqual({ t: Infinity, seq: -1 });
    expect(spans.earliestEndOf('pay_none', STATUSES)).toBeNull();
    expect(spans.orderedPairs('pay_none')).toEqual([]);
  });
});
