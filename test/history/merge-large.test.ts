/**
 * merge at fleet size: the merged end time was a Math.max over every record spread as
 * arguments, which overflows the call stack ("Maximum call stack size exceeded", exit 3) past a
 * few hundred thousand records; bench/k6-check.ts merging 4 × 250k k6 exchanges hit it.
 */
import { describe, expect, it } from 'vitest';
import { mergeShards } from '../../src/history/merge.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { endRec, ex, runRec } from '../oracle/fixtures.ts';

describe('mergeShards on many records', () => {
  it('merges 2 × 300,000 exchanges, its end at the latest completion', () => {
    const shard = (id: string, n: number): HistoryRecord[] => {
      const out: HistoryRecord[] = [runRec({ runId: id })];
      // One template, shallow copies: the test is about the count, not the contents.
      const x = ex({ op: 'retrieve', t: 0, dur: 1 });
      for (let i = 0; i < n; i++) out.push({ ...x, seq: i + 1, tIntended: i, tStart: i, tEnd: i + 1 });
      out.push(endRec({ tEnd: n + 1, requests: n }));
      return out;
    };
    const { records } = mergeShards([
      { source: 'a', kind: 'paystorm', records: shard('a', 300_000) },
      { source: 'b', kind: 'paystorm', records: shard('b', 300_000) },
    ]);
    const end = records.at(-1) as { kind: string; tEnd: number };
    expect(end.kind).toBe('end');
    expect(records.length).toBe(600_002);
    expect(end.tEnd).toBeGreaterThanOrEqual(300_000);
  }, 120_000);
});
