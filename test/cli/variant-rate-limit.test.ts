/**
 * A variant that configures its own rate limit (rate-limit-configured admits 300 a window) and a
 * --rate-limit of the user's: the up-front checks refuse a different limit, naming the fix, and
 * let the same limit (or none) through.
 */
import { describe, expect, it } from 'vitest';
import { resolveRunConfig, runProblems } from '../../src/cli/run-checks.ts';
import { variantByName } from '../../src/target/variants.ts';
import { EXIT, PaystormError } from '../../src/spec/index.ts';

const VARIANT = 'rate-limit-configured';
const limit = variantByName(VARIANT)!.options.rateLimit!;
const onVariant = (cfg: Parameters<typeof runProblems>[0]) => runProblems({ out: 'reports', ...cfg }).filter((p) => p.field === '--variant' || p.field === '--rate-limit');

describe("a variant's own rate limit vs --rate-limit", () => {
  it('refuses a different --rate-limit, on --variant, naming both limits and the fix', () => {
    expect(limit).toBe(300);
    expect(onVariant({ variant: VARIANT, rateLimit: 120 })).toEqual([{ field: '--variant', message: `--variant ${VARIANT} admits 300 requests per window; drop --rate-limit 120.` }]);
    let err: unknown;
    try {
      resolveRunConfig({ variant: VARIANT, rateLimit: 120, out: 'reports' }, null);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(EXIT.usage);
    expect((err as Error).message).toBe(`--variant: --variant ${VARIANT} admits 300 requests per window; drop --rate-limit 120.`);
  });

  it('lets the same limit, no --rate-limit, or a variant without a limit of its own through', () => {
    expect(onVariant({ variant: VARIANT, rateLimit: 300 })).toEqual([]);
    expect(onVariant({ variant: VARIANT })).toEqual([]);
    expect(onVariant({ rateLimit: 120 })).toEqual([]);
    const other = 'processing-status-a';
    expect(variantByName(other)!.options.rateLimit).toBeUndefined();
    expect(onVariant({ variant: other, rateLimit: 120 })).toEqual([]);
  });
});
