import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INVARIANTS } from '../../src/oracle/index.ts';
import { NOT_TESTABLE, coverageRows, renderCoverage } from '../../src/oracle/coverage.ts';
import { RULES } from '../../src/spec/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('rules coverage', () => {
  const rows = coverageRows(INVARIANTS, [{ name: 'demo', rules: ['AUTH-1', 'RL-1'] }]);

  it('every rule of rules.md that a harness can test is checked by at least one invariant', () => {
    const uncovered = rows.filter((r) => r.invariants.length === 0 && !NOT_TESTABLE[r.rule.id]).map((r) => r.rule.id);
    expect(uncovered).toEqual([]);
  });

  it('only the not-testable rules lack an invariant, and each says why', () => {
    for (const r of RULES.filter((x) => x.kind === 'not-testable')) {
      expect(NOT_TESTABLE[r.id]?.length ?? 0, r.id).toBeGreaterThan(40);
      expect(rows.find((x) => x.rule.id === r.id)!.invariants).toEqual([]);
    }
  });

  it('renders one row per rule with its invariants and scenarios', () => {
    const md = renderCoverage(rows, true);
    for (const r of RULES) expect(md).toMatch(new RegExp(`^\\| ${r.id} \\|`, 'm'));
    expect(md).toMatch(/^\| AUTH-1 \| testable \| .* \| `auth-malformed-header` \| demo \|$/m);
    expect(md).toMatch(/IDEM-11.*longer than a day/);
    expect(md).toMatch(/## Rules no scenario declares/);
  });

  it('lists no scenario column without scenarios, and names only the scenarios it is given', () => {
    const md = renderCoverage(coverageRows(INVARIANTS, []), false);
    expect(md).toMatch(/scenarios column is empty/);
    expect(md).not.toMatch(/## Rules no scenario declares/);
    expect(rows.flatMap((r) => r.scenarios)).toEqual(['demo', 'demo']);
  });

  it('the oracle reads no scenarios itself: the caller passes their rules', () => {
    const src = readFileSync(resolve(root, 'src/oracle/coverage.ts'), 'utf8');
    expect(src).not.toMatch(/from '[^']*scenarios|import\(/);
  });

  it('docs/rules-coverage.md is what scripts/rules-coverage.ts writes now', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/rules-coverage.ts'], { cwd: root, encoding: 'utf8' });
    expect(out).toBe(readFileSync(resolve(root, 'docs/rules-coverage.md'), 'utf8'));
  });
});
