/**
 * `paystorm merge` reads each k6 shard as a stream (shard-chunks.ts `streamedShard`): its body
 * serialized in the merge's order (completion time, then position) while only the exchanges in
 * flight wait. It must hand the merge exactly what sorting the whole shard does
 * (`serializeShard(shardInputOf(...))`), and give up (null) rather than misorder a record.
 */
import { describe, expect, it } from 'vitest';
import { mergeShardInputs, mergeShards, shardInputOf, shardOffsets, type Shard } from '../../src/history/merge.ts';
import { serializeShard, shardOfChunks, streamedShard, type SerializedShard } from '../../src/history/shard-chunks.ts';
import type { ExchangeRecord, HistoryRecord } from '../../src/history/index.ts';
import { endRec, ex, RUN_WALL, runRec } from '../oracle/fixtures.ts';
import { readK6 } from '../../src/history/k6.ts';
import { sharedPath } from '../shared-files.ts';

/** Exchanges by start, some slow (they end after many later ones), some ending at the same time; Date headers on each. */
function shardRecords(seed: number, n: number): HistoryRecord[] {
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: HistoryRecord[] = [runRec({ runId: `r${seed}` })];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += Math.round(rand() * 4) / 2; // 0, 0.5, ... ms apart: equal starts happen
    const dur = rand() < 0.05 ? 200 + Math.round(rand() * 2000) : Math.round(rand() * 20);
    const rec: ExchangeRecord = ex({ t, dur, seq: i + 1, scenario: rand() < 0.5 ? 'a' : 'b' });
    rec.date = Math.floor((RUN_WALL + t + 3) / 1000);
    out.push(rec);
  }
  out.push(endRec({ tEnd: t + 3000, requests: n }));
  return out;
}

function bodyOf(s: SerializedShard): { records: HistoryRecord[]; positions: number[] } {
  const records: HistoryRecord[] = [];
  const positions: number[] = [];
  for (const c of shardOfChunks(s).body()) {
    records.push(...c.records);
    positions.push(...Array.from(c.positions));
  }
  return { records, positions };
}

describe('a shard read as a stream', () => {
  it('hands the merge the same body and facts as the shard sorted whole', () => {
    const records = shardRecords(7, 5000);
    const shard: Shard = { source: 's', kind: 'k6', records };
    const streamed = streamedShard('s', 'k6', records[0] as never, () => records)!;
    const whole = serializeShard(shardInputOf(shard));
    expect(streamed).not.toBeNull();
    const { chunks: _a, positions: _b, ...streamedFacts } = streamed;
    const { chunks: _c, positions: _d, ...wholeFacts } = whole;
    expect(streamedFacts).toEqual(wholeFacts);
    const a = bodyOf(streamed);
    const b = bodyOf(whole);
    expect(a.positions).toEqual(b.positions);
    expect(a.records).toEqual(b.records);
    // Not trivially so: the order is not the start order.
    expect(a.positions.some((p, i) => i > 0 && p < a.positions[i - 1])).toBe(true);
  });

  it('merged from streamed shards, the records are those of mergeShards', () => {
    const shards: Shard[] = [1, 2, 3].map((seed) => ({ source: `s${seed}`, kind: 'k6', records: shardRecords(seed, 2000) }));
    const offsets = shardOffsets(shards);
    const streamed = shards.map((s) => streamedShard(s.source, 'k6', s.records[0] as never, () => s.records)!);
    const merged = [...mergeShardInputs(streamed.map(shardOfChunks), offsets).records()];
    expect(merged).toEqual(mergeShards(shards).records);
  });

  it('a real k6 recording kept as its exchanges\' texts hands the merge the same body as V8-serialized records', async () => {
    for (const name of ['mixed-30s-clean', 'idempotency-idem-no-inflight-lock']) {
      const path = sharedPath(`samples/k6/${name}.k6.json.gz`);
      const k6 = await readK6(path);
      const texts = streamedShard(name, 'k6', k6.run, () => k6.records(), { run: k6, path })!;
      const objects = streamedShard(name, 'k6', k6.run, () => k6.records())!;
      expect(texts.k6?.bounds.length).toBe(texts.chunks.length);
      expect(objects.k6).toBeUndefined();
      const a = bodyOf(texts);
      const b = bodyOf(objects);
      expect(a.records.length).toBe(k6.exchanges);
      expect(a.positions).toEqual(b.positions);
      expect(a.records.map((r) => JSON.stringify(r))).toEqual(b.records.map((r) => JSON.stringify(r)));
      expect(a.records).toEqual(b.records);
    }
  });

  it('gives up (null) on an exchange recorded as ending before it started, which would go before one already out', () => {
    const records = shardRecords(3, 500);
    const late = records[400] as ExchangeRecord;
    late.tEnd = late.tStart - 100;
    expect(streamedShard('s', 'k6', records[0] as never, () => records)).toBeNull();
  });
});

describe("the merged run record", () => {
  it("names every shard's probe payments once (FT-3 leaves them out of the payments only lists show)", () => {
    const shard = (seed: number, probePayments?: string[]): Shard => {
      const records = shardRecords(seed, 20);
      const run = records[0] as ReturnType<typeof runRec>;
      records[0] = { ...run, target: { ...run.target, ...(probePayments ? { probePayments } : {}) } };
      return { source: `s${seed}`, kind: 'paystorm', records };
    };
    const runOf = (shards: Shard[]) => mergeShards(shards).records[0] as ReturnType<typeof runRec>;
    expect(runOf([shard(1, ['pay_a']), shard(2), shard(3, ['pay_b', 'pay_a'])]).target.probePayments).toEqual(['pay_a', 'pay_b']);
    expect(runOf([shard(1), shard(2)]).target).not.toHaveProperty('probePayments');
  });
});
