/**
 * A conforming variant of the reference service, picked from the seed, passes the full default
 * suite through the whole run pipeline with zero failed invariants (docs/variant-matrix.md).
 * Its own file so it runs beside the selftest sample on the other test worker.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runVariantMatrix } from '../../src/cli/variant-matrix.ts';

const seed = process.env.PAYSTORM_SELFTEST_SEED ? Number(process.env.PAYSTORM_SELFTEST_SEED) : Math.floor(Math.random() * 2 ** 31);
const presentation = seed % 2 === 0 ? 'A' : 'B';

describe(`variant sample (seed ${seed})`, () => {
  it('a conforming variant picked from the seed passes the default suite with zero failed invariants', { timeout: 240_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'paystorm-variants-'));
    const report = await runVariantMatrix({ sample: 1, seed, presentation, out, matrix: null });
    const why = `seed ${seed} (rerun with PAYSTORM_SELFTEST_SEED=${seed}); reports in ${out}`;
    expect(report.runs).toHaveLength(1);
    const r = report.runs[0]!;
    expect(r.passed, `variant ${r.variant} (${r.presentation}): exit ${r.exitCode}, failing ${r.failing.join(', ') || '-'}, not exercised ${r.notExercisedDeclared.join(', ') || '-'} ${r.error ?? ''}; ${why}`).toBe(true);
    expect(report.exitCode).toBe(0);
  });
});
