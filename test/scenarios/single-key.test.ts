/**
 * A deployment reached with one test key only: the rate-limit scenario then shares the key
 * with the load scenarios, so it must wait for a fresh window before its probes and leave
 * the key with a fresh window after them; rules that need a second key are not declared.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { judge, unexercisedDeclaredRules } from '../../src/oracle/index.ts';
import { scenarioByName } from '../../scenarios/index.ts';
import { runAgainstReference, type ScenarioRun, LIMIT } from './harness.ts';

describe('one test key (presentation B)', () => {
  let run: ScenarioRun;
  beforeAll(async () => {
    run = await runAgainstReference(['idempotency', 'rate-limit', 'refunds'].map((n) => scenarioByName(n)!), {
      presentation: 'B',
      keys: (k) => k.key.startsWith('svc_test_sk_acmeTestKey'),
    });
  }, 90_000);

  it('runs every scenario on the one key without errors', () => {
    expect(run.outcome.scenarioErrors).toEqual([]);
    expect(new Set(run.exchanges.filter((x) => x.status > 0 && x.op !== 'raw').map((x) => x.key)).size).toBe(1);
  });

  it('rate-limit still drives exactly the limit in one window, and the scenario after it is not limited', () => {
    const rl = run.exchanges.filter((x) => x.scenario === 'rate-limit');
    const fresh = rl.filter((x) => x.group === 'rl-fresh');
    expect(fresh.length).toBeGreaterThanOrEqual(2);
    expect(fresh[0].rate!.remaining).toBeLessThan(LIMIT - 1);
    expect(fresh.at(-1)!.rate!.remaining).toBe(LIMIT - 1);
    expect(rl.filter((x) => x.group === 'rl-w1' && x.status !== 429).length).toBe(LIMIT - 1);
    expect(rl.some((x) => x.group === 'rl-other-key')).toBe(false);
    expect(run.exchanges.filter((x) => x.scenario === 'refunds' && x.status === 429)).toEqual([]);
    expect(run.exchanges.filter((x) => x.scenario === 'idempotency' && x.status === 429)).toEqual([]);
  });

  it('declares no rule it cannot exercise with one key, and the oracle agrees', async () => {
    const j = await judge(run.records);
    const declared = j.run!.scenarios.flatMap((s) => s.rules);
    expect(declared).not.toContain('IDEM-8');
    expect(declared).not.toContain('RL-9');
    expect(unexercisedDeclaredRules(j.invariants, declared)).toEqual([]);
    expect(j.invariants.filter((i) => i.status === 'fail' || i.status === 'error').map((i) => `${i.id}: ${i.examples[0]?.message ?? i.error}`)).toEqual([]);
  });
});
