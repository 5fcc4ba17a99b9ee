import { describe, expect, it } from 'vitest';
import { buildSummary, judge, verdictOf } from '../../src/oracle/index.ts';
import { summarySchema } from '../../src/spec/index.ts';
import { endRec, err, ex, fault, runRec } from './fixtures.ts';

describe('buildSummary', () => {
  it('builds a summary that validates against summary v1', async () => {
    const run = runRec({ scenarios: [{ name: 'auth', rules: ['AUTH-1'] }] });
    const f = fault();
    const j = await judge([run, ex({ op: 'raw', status: 401, error: err('invalid_api_key'), sent: { auth: 'missing' } }), f, endRec({ tEnd: 5000 })]);
    const v = verdictOf({ invariants: j.invariants, thresholds: [], declaredRules: ['AUTH-1'], interrupted: false });
    const s = buildSummary({ run: j.run, end: j.end, invariants: j.invariants, thresholds: [], metrics: null, faults: [f], exitCode: v.exitCode, verdict: v.verdict });
    expect(summarySchema.parse(s)).toBeTruthy();
    expect(s).toMatchObject({ runId: 'run-test', complete: true, duration_ms: 5000, verdict: 'pass', exitCode: 0, started_at: new Date(run.wall).toISOString() });
    expect(s.faults[0]).toMatchObject({ proxy: 'upstream', type: 'down', tStart: 1000, tEnd: 2000 });
    expect(s.keys.map((k) => k.label)).toContain('m1/test/…aaaa');
  });

  it('marks a history without an end record incomplete', () => {
    const s = buildSummary({ run: runRec(), end: null, invariants: [], thresholds: [], metrics: null, faults: [], exitCode: 130, verdict: 'fail' });
    expect(s.complete).toBe(false);
    expect(summarySchema.parse(s).exitCode).toBe(130);
  });
});
