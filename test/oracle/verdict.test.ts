import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../src/oracle/index.ts';
import type { InvariantResult, ThresholdResult } from '../../src/spec/index.ts';

const res = (id: string, status: InvariantResult['status'], rules: string[], checked = status === 'not-exercised' ? 0 : 3): InvariantResult => ({
  id,
  title: id,
  rules,
  status,
  violations: status === 'fail' ? 1 : 0,
  examples: [],
  reason: status === 'not-exercised' ? 'nothing to judge' : null,
  error: status === 'error' ? 'Error: x' : null,
  checked,
});
const okT: ThresholdResult = { metric: 'http_req_failed', expr: 'http_req_failed: rate<0.01', value: 0, ok: true };
const badT: ThresholdResult = { ...okT, value: 0.5, ok: false };

describe('verdictOf', () => {
  const passing = [res('a', 'pass', ['RL-1']), res('b', 'not-exercised', ['RL-2'])];

  it('passes when everything judged held and no declared rule went unexercised', () => {
    expect(verdictOf({ invariants: passing, thresholds: [okT], declaredRules: ['RL-1'], interrupted: false })).toMatchObject({ verdict: 'pass', exitCode: 0 });
  });
  it('fails with 1 on a violation, even when thresholds also breach or the run was interrupted', () => {
    const inv = [...passing, res('c', 'fail', ['IDEM-3'])];
    expect(verdictOf({ invariants: inv, thresholds: [badT], declaredRules: [], interrupted: true })).toMatchObject({ verdict: 'fail', exitCode: 1 });
  });
  it('fails with 1 when an invariant threw', () => {
    expect(verdictOf({ invariants: [...passing, res('c', 'error', ['SM-1'])], thresholds: [], declaredRules: [], interrupted: false })).toMatchObject({ exitCode: 1 });
  });
  it('fails with 1 when a rule a selected scenario declares was not exercised', () => {
    const v = verdictOf({ invariants: passing, thresholds: [], declaredRules: ['RL-2'], interrupted: false });
    expect(v).toMatchObject({ verdict: 'fail', exitCode: 1 });
    expect(v.reasons.join()).toMatch(/RL-2/);
  });
  it('does not fail an observe-only declared rule the target never triggered', () => {
    const inv = [res('a', 'pass', ['RL-1']), res('f', 'not-exercised', ['AUTH-6'])];
    expect(verdictOf({ invariants: inv, thresholds: [], declaredRules: ['AUTH-6'], interrupted: false }).exitCode).toBe(0);
  });
  it('counts a declared rule exercised when any invariant citing it was', () => {
    const inv = [res('a', 'pass', ['REF-7']), res('b', 'not-exercised', ['REF-7'])];
    expect(verdictOf({ invariants: inv, thresholds: [], declaredRules: ['REF-7'], interrupted: false }).exitCode).toBe(0);
  });
  it('never passes a run that checked nothing', () => {
    const inv = [res('a', 'not-exercised', ['RL-1']), res('b', 'not-exercised', ['RL-2'])];
    expect(verdictOf({ invariants: inv, thresholds: [okT], declaredRules: [], interrupted: false })).toMatchObject({ verdict: 'fail', exitCode: 1 });
    expect(verdictOf({ invariants: [], thresholds: [], declaredRules: [], interrupted: false }).verdict).toBe('fail');
  });
  it('exits 2 when only thresholds breached', () => {
    expect(verdictOf({ invariants: passing, thresholds: [okT, badT], declaredRules: [], interrupted: false })).toMatchObject({ verdict: 'fail', exitCode: 2 });
  });
  it('exits 130 for an interrupted run with no violation', () => {
    expect(verdictOf({ invariants: passing, thresholds: [badT], declaredRules: ['RL-2'], interrupted: true })).toMatchObject({ verdict: 'fail', exitCode: 130 });
  });
});

describe('verdictOf reason (one sentence, summary.json reason)', () => {
  const passing = [res('a', 'pass', ['RL-1']), res('b', 'not-exercised', ['RL-2'])];
  const one = (s: string) => expect(s.split(/\.\s/).length).toBe(1);
  it('names the violated invariants', () => {
    const v = verdictOf({ invariants: [...passing, res('c', 'fail', ['IDEM-3']), res('d', 'fail', ['SM-1'])], thresholds: [], declaredRules: [], interrupted: false });
    expect(v.reason).toBe('failed: 2 invariants violated (c, d)');
  });
  it('says which declared rule was not exercised and why, with zero failed invariants', () => {
    const inv = [res('a', 'pass', ['RL-1']), { ...res('b', 'not-exercised', ['RL-2']), reason: 'no window was seen to its end.' }];
    const v = verdictOf({ invariants: inv, thresholds: [], declaredRules: ['RL-1', 'RL-2'], interrupted: false });
    expect(v.reason).toBe('failed: RL-2 was not exercised because no window was seen to its end');
    one(v.reason);
  });
  it('names the breached threshold with its observed value, and counts a pass', () => {
    const t: ThresholdResult = { metric: 'http_req_duration{op:create}', expr: 'p(99)<800', value: 1234.5678, ok: false };
    expect(verdictOf({ invariants: passing, thresholds: [okT, t], declaredRules: [], interrupted: false }).reason).toBe('failed: 1 threshold breached (http_req_duration{op:create} p(99)<800, observed 1235)');
    expect(verdictOf({ invariants: passing, thresholds: [okT], declaredRules: [], interrupted: false }).reason).toBe('passed: 1 invariant held and the threshold was met');
  });
  it('says an interrupted run cannot pass', () => {
    expect(verdictOf({ invariants: passing, thresholds: [], declaredRules: [], interrupted: true }).reason).toMatch(/^failed: the run was interrupted/);
  });
});
