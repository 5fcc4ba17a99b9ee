import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../src/spec/index.ts';
import { BUGS } from '../../src/target/index.ts';
import { PROBES } from './bug-probes.ts';
import { bugTests } from './bugs.shared.ts';

bugTests(['LIST', 'WH', 'ERR']);

describe('the bug catalog', () => {
  it('has unique names, real rule ids, a probe each, and spans the required families', () => {
    expect(BUGS.length).toBeGreaterThanOrEqual(20);
    expect(new Set(BUGS.map((b) => b.name)).size).toBe(BUGS.length);
    for (const b of BUGS) {
      expect(RULE_IDS).toContain(b.rule);
      expect(PROBES[b.name]).toBeTypeOf('function');
    }
    const families = new Set(BUGS.map((b) => b.rule.split('-')[0]));
    for (const f of ['RL', 'IDEM', 'REF', 'LIST', 'WH', 'ERR', 'SM', 'PAY', 'SEC']) expect(families).toContain(f);
    // Every bug is exercised by exactly one of the bug test files.
    const covered = ['RL', 'IDEM', 'AUTH', 'SEC', 'PAY', 'SM', 'REF', 'TEST', 'FT', 'LIST', 'WH', 'ERR'];
    for (const b of BUGS) expect(covered).toContain(b.rule.split('-')[0]);
  });
});
