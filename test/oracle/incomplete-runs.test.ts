/**
 * An incomplete run never passes: a missing end record, an interrupt, a shard of a merged run
 * that was interrupted or lost its end record (exit 130), a scenario that threw (exit 1). A cap
 * that stopped the run is judged on what it measured (docs/history-format.md).
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/spec/index.ts';
import { runStop, type HistoryRecord } from '../../src/history/index.ts';
import { check } from '../../src/oracle/index.ts';
import { endRec, list, rate, runRec } from './fixtures.ts';

/** A history every invariant passes or leaves unexercised (no declared rules), ended as given. */
function history(end: Partial<Parameters<typeof endRec>[0]> | null): HistoryRecord[] {
  const recs: HistoryRecord[] = [runRec({ scenarios: [{ name: 'mixed', rules: [] }] }), ...Array.from({ length: 5 }, (_, i) => list([], { t: i * 10, rate: rate(1_700_000_060, 4 - i), hasMore: false }))];
  if (end) recs.push(endRec({ tEnd: 100, requests: 5, ...end }));
  return recs;
}

describe('runStop: why a run stopped, from its end record', () => {
  it('reads single runs and merged shards, the worst shard deciding', () => {
    expect(runStop(null).kind).toBe('interrupted');
    expect(runStop(endRec({ complete: true, reason: 'done' })).kind).toBe('done');
    expect(runStop(endRec({ complete: false, reason: 'interrupted' })).kind).toBe('interrupted');
    expect(runStop(endRec({ complete: false, reason: 'cap:max-requests' })).kind).toBe('cap');
    expect(runStop(endRec({ complete: false, reason: 'scenario-error: lists, flows' })).kind).toBe('scenario-error');
    expect(runStop(endRec({ complete: false, reason: 'shard k6/a.json: cap:max-duration' })).kind).toBe('cap');
    expect(runStop(endRec({ complete: false, reason: 'shard a/history.bin.gz: cap:max-duration; shard b/history.bin.gz: interrupted' })).kind).toBe('interrupted');
    expect(runStop(endRec({ complete: false, reason: 'shard without end record: b/history.bin.gz' })).kind).toBe('interrupted');
    expect(runStop(endRec({ complete: false, reason: 'shard a: scenario-error: mixed' })).kind).toBe('scenario-error');
    expect(runStop(endRec({ complete: false, reason: 'something new' })).kind).toBe('interrupted');
  });
});

describe('check: an incomplete run cannot pass', () => {
  it('the same history passes when complete', async () => {
    const r = await check(history({}));
    expect(r.verdict).toMatchObject({ verdict: 'pass', exitCode: EXIT.pass });
  });
  for (const [what, end, exit] of [
    ['no end record', null, EXIT.interrupted],
    ['interrupted', { complete: false, reason: 'interrupted' }, EXIT.interrupted],
    ['a merged shard interrupted', { complete: false, reason: 'shard s1/history.bin.gz: interrupted' }, EXIT.interrupted],
    ['a merged shard without end record', { complete: false, reason: 'shard without end record: s2/history.bin.gz' }, EXIT.interrupted],
    ['a scenario that threw', { complete: false, reason: 'scenario-error: lists' }, EXIT.violation],
  ] as const) {
    it(`${what}: fail, exit ${exit}`, async () => {
      const r = await check(history(end));
      expect(r.verdict.verdict).toBe('fail');
      expect(r.verdict.exitCode).toBe(exit);
      if (exit === EXIT.violation) expect(r.verdict.reason).toMatch(/a scenario stopped with an error before it finished \(lists; .*an incomplete run cannot pass/);
    });
  }
  it('a cap is judged on what the run measured', async () => {
    expect((await check(history({ complete: false, reason: 'cap:max-duration' }))).verdict).toMatchObject({ verdict: 'pass', exitCode: EXIT.pass });
  });
});
