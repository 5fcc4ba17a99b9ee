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
