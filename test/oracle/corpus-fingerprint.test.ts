/**
 * The regression corpus's fingerprint of a judgement (scripts/corpus/fingerprint.ts): the same
 * history judged twice gives the same fingerprint; a different verdict, violation count or
 * evidence gives a different one, named by invariant and field; only what is not a judgement is
 * normalised.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { check } from '../../src/oracle/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import type { Summary } from '../../src/spec/index.ts';
import { compareFingerprints, describeDifference, fingerprintOf } from '../../scripts/corpus/fingerprint.ts';
import { randomHistory } from '../../scripts/corpus/random-history.ts';
import { create, endRec, rate, resetSeq, runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

/** Creates of 1000 whose answers show these amounts (payment-echoes-input: each other amount is a violation). */
function creates(amounts: number[]): HistoryRecord[] {
  resetSeq();
  return [
    runRec({ scenarios: [{ name: 'mixed', rules: ['PAY-8'] }] }),
    ...amounts.map((amount, i) => create({ t: i * 100, id: `pay_00000000-0000-4000-8000-00000000000${i}`, p: { amount }, sent: { amount: 1000 }, rate: rate(1_700_000_060, 4 - i) })),
    endRec({ tEnd: 10_000 }),
  ];
}

async function summaryOf(records: HistoryRecord[]): Promise<Summary> {
  return (await check(structuredClone(records))).summary;
}

async function fingerprintOfRecords(records: HistoryRecord[]) {
  return fingerprintOf(await summaryOf(records));
}

const diffLines = (a: ReturnType<typeof fingerprintOf>, b: ReturnType<typeof fingerprintOf>) => compareFingerprints(a, b).map(describeDifference);

describe('fingerprint of a judgement', () => {
  it('is the same when the same history is judged twice', async () => {
    for (const records of [creates([1000, 1001, 1000]), randomHistory(5).records]) {
      const a = await fingerprintOfRecords(records);
      const b = await fingerprintOfRecords(records);
      expect(diffLines(a, b)).toEqual([]);
      expect(b).toEqual(a);
    }
    // The random history is one with violations of many invariants, so the comparison above compares evidence.
    const a = await fingerprintOfRecords(randomHistory(5).records);
    expect(Object.values(a.invariants).filter((i) => i.status === 'fail').length).toBeGreaterThan(10);
  });

  it('differs in the verdict and exit code when one history passes and the other fails', async () => {
    const pass = await fingerprintOfRecords(creates([1000, 1000]));
    const fail = await fingerprintOfRecords(creates([1000, 1001]));
    expect(pass.verdict).toBe('pass');
    expect(fail.verdict).toBe('fail');
    const lines = diffLines(pass, fail);
    expect(lines).toContain('run: verdict: "pass" -> "fail"');
    expect(lines).toContain('run: exitCode: 0 -> 1');
    expect(lines).toContain('invariant payment-echoes-input: status: "pass" -> "fail"');
  });

  it('differs in an invariant\'s violation count, named by invariant and field', async () => {
    const one = await fingerprintOfRecords(creates([1000, 1001, 1000]));
    const two = await fingerprintOfRecords(creates([1000, 1001, 1002]));
    expect(one.verdict).toBe(two.verdict);
    const lines = diffLines(one, two);
    expect(lines).toContain('invariant payment-echoes-input: violations: 1 -> 2');
    // Only that invariant (and the verdict's reason, which counts) differ.
    expect(compareFingerprints(one, two).every((d) => d.where === 'invariant payment-echoes-input' || (d.where === 'run' && d.field === 'reason'))).toBe(true);
  });

  it('differs in the evidence when the count is the same', async () => {
    const a = await fingerprintOfRecords(creates([1000, 1001]));
    const b = await fingerprintOfRecords(creates([1000, 1005]));
    expect(a.invariants['payment-echoes-input'].violations).toBe(b.invariants['payment-echoes-input'].violations);
    const diffs = compareFingerprints(a, b);
    expect(diffs.length).toBeGreaterThan(0);
    expect(diffs.every((d) => d.where === 'invariant payment-echoes-input')).toBe(true);
    expect(diffs.map((d) => d.field)).toContain('examples[0].message');
    expect(describeDifference(diffs.find((d) => d.field === 'examples[0].message')!)).toMatch(/^invariant payment-echoes-input: examples\[0\]\.message: ".*1001.*" -> ".*1005.*"$/);
  });

  it('differs when an invariant or a threshold result is missing, or the metrics differ', async () => {
    const s = await summaryOf(creates([1000, 1001]));
    const fp = fingerprintOf(s);
    const without = fingerprintOf({ ...s, invariants: s.invariants.filter((i) => i.id !== 'amount-minimum') });
    expect(diffLines(fp, without)).toEqual([expect.stringMatching(/^invariant amount-minimum: \{.*\} -> \(absent\)$/)]);
    const threshold = { metric: 'http_req_failed', expr: 'http_req_failed: rate<0.01', value: 0, ok: true };
    expect(diffLines(fingerprintOf({ ...s, thresholds: [threshold] }), fingerprintOf({ ...s, thresholds: [{ ...threshold, value: 0.5, ok: false }] }))).toEqual([
      'threshold http_req_failed: rate<0.01 []: [0].ok: true -> false',
      'threshold http_req_failed: rate<0.01 []: [0].value: 0 -> 0.5',
    ]);
    expect(diffLines(fp, fingerprintOf({ ...s, metrics: { ...s.metrics, extra: 1 } }))).toEqual([expect.stringMatching(/^run: digests\.metrics: "[0-9a-f]{64}" -> "[0-9a-f]{64}"$/)]);
  });

  it('normalises only what is not a judgement: run id, paths, stack frames, repro file names, order', async () => {
    const s = await summaryOf(creates([1000, 1001]));
    const base = fingerprintOf(s, { paths: { '/runs/r1': '<run>' } });
    const failing = s.invariants.find((i) => i.id === 'payment-echoes-input')!;
    const moved: Summary = {
      ...s,
      runId: 'another-folder',
      // The judge sorts failures first: an order that follows the statuses.
      invariants: [...s.invariants].reverse().map((i) => (i === failing ? { ...i, examples: i.examples.map((e) => ({ ...e, repro: `repro/${i.id}-1.sh` })) } : i)),
      findings: [...(s.findings ?? [])].reverse(),
    };
    expect(diffLines(base, fingerprintOf(moved, { paths: { '/runs/r2': '<run>' } }))).toEqual([]);
    // An error's message is kept, its stack frames (paths, line numbers) are not; a path in a message is normalised.
    const thrown = (stack: string): Summary => ({ ...s, invariants: s.invariants.map((i) => (i.id === 'amount-minimum' ? { ...i, status: 'error', error: stack } : i)) });
    const e1 = fingerprintOf(thrown('TypeError: x is undefined in /repo/a/src/oracle/x.ts\n    at f (/repo/a/src/oracle/x.ts:10:5)'), { paths: { '/repo/a': '<root>' } });
    const e2 = fingerprintOf(thrown('TypeError: x is undefined in /repo/b/src/oracle/x.ts\n    at g (/repo/b/src/oracle/x.ts:99:1)'), { paths: { '/repo/b': '<root>' } });
    expect(e1.invariants['amount-minimum'].error).toBe('TypeError: x is undefined in <root>/src/oracle/x.ts');
    expect(diffLines(e1, e2)).toEqual([]);
    const e3 = fingerprintOf(thrown('RangeError: another message\n    at f (/repo/a/src/oracle/x.ts:10:5)'), { paths: { '/repo/a': '<root>' } });
    expect(diffLines(e1, e3)).toEqual(['invariant amount-minimum: error: "TypeError: x is undefined in <root>/src/oracle/x.ts" -> "RangeError: another message"']);
  });
});
