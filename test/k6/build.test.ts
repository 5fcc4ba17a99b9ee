/**
 * The k6 bundles as k6 would load them: built by k6/build.mjs, self-contained apart from
 * k6's own modules, with a valid `options` export (executors, thresholds) and the exec
 * functions the scenarios name. Options are read by evaluating each bundle's init
 * context under the Node shim (test/k6/shim), with __ENV as k6 would pass it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { buildBundles, removeBundles, ROOT, runShim, SCRIPTS } from './helpers.ts';
import { validateScenarios, validateSystemTags, validateThresholds, parseThresholdExpression } from './k6-options.ts';
import { K6_SYSTEM_TAGS } from '../../src/history/k6-tags.ts';

const TEST_KEY = 'm1:svc_test_sk_aaaaBBBBccccDDDD1111';
const TEST_KEY_2 = 'm2:svc_test_sk_eeeeFFFFggggHHHH2222';
const LIVE_KEY = 'm1:svc_live_sk_liveLIVEliveLIVE9999';

let dir = '';
beforeAll(() => {
  dir = buildBundles();
});
afterAll(removeBundles);

/** Import specifiers of a bundle, found by TypeScript's own pre-processor (static, dynamic and require). */
function importsOf(code: string): string[] {
  const info = ts.preProcessFile(code, true, true);
  return info.importedFiles.map((f) => f.fileName);
}

describe('k6 bundles', () => {
  it.each(SCRIPTS)('%s: built, and imports nothing but k6 modules', (name) => {
    const file = join(dir, `${name}.js`);
    expect(existsSync(file)).toBe(true);
    const code = readFileSync(file, 'utf8');
    const imports = importsOf(code);
    expect(imports.length).toBeGreaterThan(0);
    for (const spec of imports) expect(spec, `${name}.js imports ${spec}`).toMatch(/^k6(\/[a-z0-9/_-]+)?$/);
    expect(code).not.toMatch(/\brequire\(/);
    expect(code).not.toMatch(/jslib\.k6\.io|https?:\/\/[^\s"'`]*\.js["'`]/);
    // zod and node:crypto must not be in a k6 bundle, nor the src/spec modules that pull them.
    expect(code).not.toMatch(/from ["'](zod|node:)/);
    expect(code).not.toContain('node_modules/zod');
    expect(code).not.toMatch(/\/\/ src\/spec\/(faults|history|summary|signature|index)\.ts/);
  });

  it('the scripts take the sandbox card table from src/spec/cards.ts itself, with no zod', () => {
    const code = readFileSync(join(dir, 'idempotency.js'), 'utf8');
    expect(code).toMatch(/\/\/ src\/spec\/cards\.ts/);
    expect(code).not.toMatch(/\bz\.object\(|ZodError/);
  });

  it.each(SCRIPTS)('%s: options has valid scenarios and thresholds over paystorm metric names', async (name) => {
    const r = await runShim(join(dir, `${name}.js`), { KEYS: TEST_KEY }, { mode: 'options' });
    expect(r.fatal).toBeNull();
    const options = r.options as { scenarios: Record<string, { exec?: string }>; thresholds: Record<string, unknown> };
    const functions = r.exports.filter((e) => e !== 'options');
    expect(validateScenarios(options.scenarios, functions)).toEqual([]);
    expect(validateThresholds(options.thresholds)).toEqual([]);
    expect(r.exports).toContain('default');
    for (const sc of Object.values(options.scenarios)) expect(r.exports).toContain(sc.exec ?? 'default');
  });

  it.each(SCRIPTS)('%s: carries the thresholds of paystorm\'s own scenario of that name', async (name) => {
    const mod = (await import(`../../scenarios/${name}.ts`)) as { default: { thresholds?: string[] } };
    const r = await runShim(join(dir, `${name}.js`), { KEYS: TEST_KEY }, { mode: 'options' });
    const k6Thresholds = (r.options as { thresholds: Record<string, (string | { threshold: string })[]> }).thresholds;
    const theirs = mod.default.thresholds ?? [];
    expect(theirs.length).toBeGreaterThan(0);
    for (const t of theirs) {
      const i = t.indexOf(': ');
      const [key, expr] = [t.slice(0, i), t.slice(i + 2)];
      const ours = (k6Thresholds[key] ?? []).map((x) => (typeof x === 'string' ? x : x.threshold));
      expect(ours, `${name}: paystorm threshold ${t}`).toContain(expr);
    }
  });

  it.each(SCRIPTS)('%s: keeps the system tags the converter and k6 read, and drops the rest (options.systemTags)', async (name) => {
    const r = await runShim(join(dir, `${name}.js`), { KEYS: TEST_KEY }, { mode: 'options' });
    const tags = (r.options as { systemTags?: string[] }).systemTags;
    expect(tags).toEqual([...K6_SYSTEM_TAGS]);
    expect(validateSystemTags(tags)).toEqual([]);
    // What src/history/k6.ts reads (status, scenario, check), and setup()/teardown()'s group.
    for (const read of ['status', 'method', 'scenario', 'group', 'check', 'error_code']) expect(tags).toContain(read);
    for (const dropped of ['url', 'name', 'proto', 'expected_response', 'tls_version']) expect(tags).not.toContain(dropped);
  });

  it('mixed and soak run the open model at 80% of the per-key limit times the keys', async () => {
    const one = await runShim(join(dir, 'mixed.js'), { KEYS: TEST_KEY }, { mode: 'options' });
    const two = await runShim(join(dir, 'mixed.js'), { KEYS: `${TEST_KEY},${TEST_KEY_2}` }, { mode: 'options' });
    const sc1 = (one.options as { scenarios: Record<string, Record<string, unknown>> }).scenarios.mixed;
    const sc2 = (two.options as { scenarios: Record<string, Record<string, unknown>> }).scenarios.mixed;
    expect(sc1.executor).toBe('constant-arrival-rate');
    expect(sc1.timeUnit).toBe('1m');
    expect(sc1.duration).toBe('5m');
    // Two keys: twice the budget, so (within rounding) twice the rate.
    expect(Math.abs((sc2.rate as number) - 2 * (sc1.rate as number))).toBeLessThanOrEqual(1);
    const fixed = await runShim(join(dir, 'mixed.js'), { KEYS: TEST_KEY, RATE: '2.5', DURATION: '90s' }, { mode: 'options' });
    const sc3 = (fixed.options as { scenarios: Record<string, Record<string, unknown>> }).scenarios.mixed;
    expect(sc3.rate).toBe(150);
    expect(sc3.duration).toBe('90s');
    const soak = await runShim(join(dir, 'soak.js'), { KEYS: TEST_KEY }, { mode: 'options' });
    const scs = (soak.options as { scenarios: Record<string, Record<string, unknown>> }).scenarios.soak;
    expect(scs.duration).toBe('30m');
    expect(scs.rate).toBe(sc1.rate);
  });

  it.each(SCRIPTS)('%s: the init context runs without KEYS (k6-operator archives without the pod env)', async (name) => {
    const r = await runShim(join(dir, `${name}.js`), { RATE: '3', DURATION: '1m' }, { mode: 'options' });
    expect(r.fatal).toBeNull();
    expect(validateScenarios((r.options as { scenarios: unknown }).scenarios, r.exports)).toEqual([]);
  });

  it.each(SCRIPTS)('%s: refuses a live key unless ALLOW_LIVE=1, without printing it', async (name) => {
    const refused = await runShim(join(dir, `${name}.js`), { KEYS: `${TEST_KEY},${LIVE_KEY}` }, { mode: 'options' });
    expect(refused.fatal).toMatch(/live key.*ALLOW_LIVE=1/s);
    expect(refused.fatal).toContain('m1/live/…9999');
    const secret = LIVE_KEY.split(':')[1];
    expect(JSON.stringify(refused)).not.toContain(secret);
    const allowed = await runShim(join(dir, `${name}.js`), { KEYS: `${TEST_KEY},${LIVE_KEY}`, ALLOW_LIVE: '1' }, { mode: 'options' });
    expect(allowed.fatal).toBeNull();
  });

  it('refuses malformed configuration with messages that name the variable', async () => {
    const bad = await runShim(join(dir, 'mixed.js'), { KEYS: 'm1:not_a_key_1234' }, { mode: 'options' });
    expect(bad.fatal).toMatch(/--key|KEYS/);
    expect(bad.fatal).not.toContain('not_a_key_1234');
    const badCards = await runShim(join(dir, 'mixed.js'), { KEYS: TEST_KEY, CARDS: '{"nope":"4242424242424242"}' }, { mode: 'options' });
    expect(badCards.fatal).toMatch(/CARDS: unknown outcome "nope"/);
    const badPres = await runShim(join(dir, 'mixed.js'), { KEYS: TEST_KEY, PRESENTATION: 'C' }, { mode: 'options' });
    expect(badPres.fatal).toMatch(/PRESENTATION/);
    const noKeys = await runShim(join(dir, 'mixed.js'), { TARGET: 'http://127.0.0.1:9' }, { mode: 'run' });
    expect(noKeys.fatal).toMatch(/setup: .*KEYS has no test key/);
  });

  it('the k6 scripts type-check under k6/tsconfig.json (k6 types only, no DOM or Node)', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(() => execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'k6', 'tsconfig.json')], { cwd: ROOT, stdio: 'pipe' })).not.toThrow();
    const cfg = ts.readConfigFile(join(ROOT, 'k6', 'tsconfig.json'), ts.sys.readFile).config as { compilerOptions: Record<string, unknown> };
    expect(cfg.compilerOptions.types).toEqual(['k6']);
    expect(cfg.compilerOptions.strict).toBe(true);
    expect(cfg.compilerOptions.noEmit).toBe(true);
    expect(cfg.compilerOptions.lib).not.toContain('DOM');
    // tsc over the scripts and the src/ modules they import takes over 30 s on a loaded 2-core machine.
  }, 180_000);
});

describe('threshold parser (port of k6 metrics/thresholds_parser.go)', () => {
  it('parses the forms of the k6 docs and refuses malformed ones', () => {
    expect(parseThresholdExpression('p(99.9) < 2000')).toEqual({ method: 'p', percentile: 99.9, operator: '<', value: 2000 });
    expect(parseThresholdExpression('rate<0.01').operator).toBe('<');
    expect(parseThresholdExpression('count>=500').operator).toBe('>=');
    expect(parseThresholdExpression('rate==1').operator).toBe('==');
    for (const bad of ['p95<200', 'p(101)<1', 'avg', 'avg<abc', 'mean<3']) expect(() => parseThresholdExpression(bad)).toThrow();
  });
  it('rejects a metric name paystorm does not define and an aggregation the metric kind lacks', () => {
    expect(validateThresholds({ req_duration: ['p(95)<1'] })[0]).toMatch(/not one of paystorm's metric names/);
    expect(validateThresholds({ rate_limited: ['p(95)<1'] })[0]).toMatch(/does not apply to a rate metric/);
    expect(validateThresholds({ 'http_req_duration{op:create}': ['p(95)<1'] })).toEqual([]);
  });
});
