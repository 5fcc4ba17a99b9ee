import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../src/spec/index.ts';
import { BUGS, DEFAULT_KEYS } from '../../src/target/index.ts';
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

  it('docs/reference-service.md lists every bug with its rule, and the default keys', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/reference-service.md'), 'utf8');
    for (const b of BUGS) expect(doc).toContain(`| \`${b.name}\` | ${b.rule} |`);
    for (const k of DEFAULT_KEYS) expect(doc).toContain(`\`${k.key}\` | ${k.merchant} |`);
  });
});
