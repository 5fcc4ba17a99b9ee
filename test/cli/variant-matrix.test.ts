import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderVariantMatrix, resolveVariantSelection, runVariantMatrix, variantPresentations } from '../../src/cli/variant-matrix.ts';
import type { RunConfig } from '../../src/cli/config.ts';
import type { RunResult } from '../../src/cli/run.ts';
import { VARIANTS, variantByName } from '../../src/target/variants.ts';
import { DEFAULT_KEYS, resolveOptions } from '../../src/target/options.ts';
import { EXIT, PaystormError, parseKeyArg, type InvariantResult, type Summary } from '../../src/spec/index.ts';

function inv(id: string, rules: string[], status: InvariantResult['status']): InvariantResult {
  return { id, title: id, rules, status, violations: status === 'fail' ? 1 : 0, examples: [], reason: null, error: null, checked: 1 };
}
function summary(invariants: InvariantResult[], exitCode: number, scenarioRules: string[] = ['RL-1']): Summary {
  return {
    version: 1,
    runId: 'r',
    verdict: exitCode === 0 ? 'pass' : 'fail',
    complete: true,
    exitCode,
    target: { url: 'http://x', embedded: true, presentation: 'B' },
    started_at: new Date(0).toISOString(),
    duration_ms: 1,
    scenarios: [{ name: 's', rules: scenarioRules }],
    invariants,
    thresholds: [],
    faults: [],
    metrics: {},
    keys: [],
  };
}

describe('variant registry', () => {
  it('has unique names, a stated open choice each, and options the service accepts', () => {
    expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
    for (const v of VARIANTS) {
      expect(v.choice.length, v.name).toBeGreaterThan(20);
      expect(() => resolveOptions(v.options), v.name).not.toThrow();
    }
  });
  it('key-prefix variants give every test key one prefix form, keep the live keys and stay distinct', () => {
    for (const [name, prefix] of [['test-keys-api-prefix', 'api_test_sk_'], ['test-keys-svc-prefix', 'svc_test_sk_']] as const) {
      const keys = variantByName(name)!.options.keys!;
      const tests = keys.filter((k) => parseKeyArg(k.key).mode === 'test');
      expect(tests.length).toBeGreaterThan(2);
      for (const k of tests) expect(k.key.startsWith(prefix)).toBe(true);
      expect(keys.filter((k) => parseKeyArg(k.key).mode === 'live').length).toBe(DEFAULT_KEYS.filter((k) => k.key.includes('_live_')).length);
      expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
      expect(keys.some((k) => !k.direct_api)).toBe(true);
    }
  });
});

describe('variant selection', () => {
  it('takes names, refuses unknown ones with exit 3, and samples deterministically by seed', () => {
    expect(resolveVariantSelection({ variants: ['presentation-a'] }, 1).variants.map((v) => v.name)).toEqual(['presentation-a']);
    try {
      resolveVariantSelection({ variants: ['nope'] }, 1);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PaystormError);
      expect((e as PaystormError).exitCode).toBe(EXIT.usage);
      expect((e as Error).message).toContain('nope');
    }
    const a = resolveVariantSelection({ sample: 2 }, 7).variants.map((v) => v.name);
    expect(a).toHaveLength(2);
    expect(resolveVariantSelection({ sample: 2 }, 7).variants.map((v) => v.name)).toEqual(a);
    expect(resolveVariantSelection({}, 1).selection).toBe('all');
  });
  it('runs a variant in its own presentation, others in the chosen ones', () => {
    expect(variantPresentations(variantByName('presentation-a')!, 'both')).toEqual(['A']);
    expect(variantPresentations(variantByName('reused-key-in-use')!, 'both')).toEqual(['A', 'B']);
    expect(variantPresentations(variantByName('reused-key-in-use')!, 'B')).toEqual(['B']);
    // The hosted body has one form for every deployment; the dual-shape variants fix their presentation.
    expect(variantPresentations(variantByName('hosted-return-url-optional')!, 'both')).toEqual(['A', 'B']);
    expect(variantPresentations(variantByName('dual-input-shape-a')!, 'both')).toEqual(['A']);
    expect(variantPresentations(variantByName('dual-input-shape-b')!, 'both')).toEqual(['B']);
  });
});

describe('runVariantMatrix with a fake runner', () => {
  it('passes only when every variant run exits 0 with no failed invariant and nothing declared left unexercised', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-variants-'));
    const seen: RunConfig[] = [];
    const runner = async (cfg: RunConfig): Promise<RunResult> => {
      seen.push(cfg);
      if (cfg.variant === 'reused-key-in-use' && cfg.presentation === 'A') {
        return { exitCode: 1, summary: summary([inv('idem-different-body', ['IDEM-4'], 'fail')], 1), runDir: null };
      }
      if (cfg.variant === 'test-keys-api-prefix') return { exitCode: 1, summary: summary([inv('rate-window-cap', ['RL-1'], 'not-exercised')], 1), runDir: null };
      return { exitCode: 0, summary: summary([inv('x', ['RL-1'], 'pass')], 0), runDir: null };
    };
    const matrix = join(dir, 'm.md');
    const r = await runVariantMatrix({ variants: ['presentation-a', 'reused-key-in-use', 'test-keys-api-prefix'], seed: 3, out: dir, matrix, runner });
    expect(seen.find((c) => c.variant === 'presentation-a')!.presentation).toBeUndefined();
    expect(seen.every((c) => c.seed === 3 && c.bugs!.length === 0 && c.scenarios!.length === 0)).toBe(true);
    expect(r.runs.map((x) => `${x.variant}/${x.presentation}:${x.passed}`)).toEqual([
      // Registry order, each variant's presentations in turn.
      'presentation-a/A:true',
      'test-keys-api-prefix/A:false',
      'test-keys-api-prefix/B:false',
      'reused-key-in-use/A:false',
      'reused-key-in-use/B:true',
    ]);
    expect(r.runs.find((x) => x.variant === 'test-keys-api-prefix')!.notExercisedDeclared).toEqual(['rate-window-cap']);
    expect(r.exitCode).toBe(EXIT.violation);
    const md = readFileSync(matrix, 'utf8');
    expect(md).toContain('| `reused-key-in-use` |');
    expect(md).toContain('**FAIL**');
    expect(md).toContain('idem-different-body');
    expect(md).toContain('[open-readings.md](open-readings.md)');
    expect(existsSync(join(dir, 'variants.json'))).toBe(true);
    expect(renderVariantMatrix(r)).toContain('Runs passed: **2 of 5**');
  });
});
