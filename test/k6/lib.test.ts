/**
 * The pure parts of k6/lib (no k6 imports), and drift checks: data the k6 scripts repeat
 * because its home module cannot go into a k6 bundle must stay equal to that home.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_TEST_CARDS } from '../../src/spec/cards.ts';
import { RULES } from '../../src/spec/rules.ts';
import { METRICS } from '../../src/spec/metrics.ts';
import { LIMITS } from '../../src/spec/limits.ts';
import { rateLimitKeyOf as paystormRateLimitKeyOf } from '../../scenarios/lib/keys.ts';
import {
  parseCards,
  DEFAULT_MIX,
  arrivalPlan,
  mixedConfig,
  parseDuration,
  parseKeys,
  parsePresentation,
  parseWeights,
  pickWeighted,
  rateLimitKeyOf,
  requestsPerIteration,
  MIX_OPS,
  durationSeconds,
  parseTarget,
  shardOf,
} from '../../k6/lib/config.ts';
import { loadThresholds } from '../../k6/lib/thresholds.ts';
import { parseMetricKey } from './k6-options.ts';
import { ROOT } from './helpers.ts';

describe('k6/lib/config.ts parseCards', () => {
  it('parses CARDS like the cards file: defaults when unset, strict outcomes, 12-19 digits', () => {
    expect(parseCards(undefined)).toEqual(DEFAULT_TEST_CARDS);
    expect(() => parseCards('{"declines":"4000000000000002"}')).toThrow(/unknown outcome "declines"/);
    expect(() => parseCards('{"do_not_honor":"4000000000000003"}')).toThrow(/"do_not_honor" is not a card number: .*Luhn/);
    expect(() => parseCards(`{"succeeds":"4242424242424242","insufficient_funds":"4242424242424242"}`)).toThrow(/"insufficient_funds" is the same number as "succeeds"/);
    expect(parseCards('{"succeeds":"4111111111111111"}')).toEqual({ succeeds: '4111111111111111' });
    expect(() => parseCards('{"succeeds":"42"}')).toThrow(/12 to 19 digits/);
    expect(() => parseCards('[1]')).toThrow(/object/);
    expect(() => parseCards('nope')).toThrow(/not JSON/);
  });
});

describe('k6/lib/config.ts', () => {
  it('parses KEYS as [merchant:]KEY, numbering merchants like paystorm, labels only', () => {
    const keys = parseKeys({ KEYS: 'acme:svc_test_sk_aaaa1111, svc_test_sk_bbbb2222' });
    expect(keys.map((k) => k.label)).toEqual(['acme/test/…1111', 'm2/test/…2222']);
    expect(keys.map((k) => k.index)).toEqual([0, 1]);
    expect(parseKeys({})).toEqual([]);
  });
  it('KEYS with one key set per shard (;): each runner takes its own, by SHARD or its k6-operator pod name', () => {
    const KEYS = 'a:svc_test_sk_aaaa1111,b:svc_test_sk_bbbb2222;a:svc_test_sk_cccc3333;a:svc_test_sk_dddd4444';
    expect(parseKeys({ KEYS, SHARD: '1' }).map((k) => k.label)).toEqual(['a/test/…1111', 'b/test/…2222']);
    expect(parseKeys({ KEYS, SHARD: '3' }).map((k) => k.label)).toEqual(['a/test/…4444']);
    // The Job paystorm-mixed-2's pod.
    expect(shardOf({ POD_NAME: 'paystorm-mixed-2-x7k2p' })).toBe(2);
    expect(parseKeys({ KEYS, POD_NAME: 'paystorm-mixed-2-x7k2p' }).map((k) => k.label)).toEqual(['a/test/…3333']);
    expect(() => parseKeys({ KEYS })).toThrow(/3 key sets .*shard is unknown: set SHARD=1..3, or POD_NAME/);
    expect(() => parseKeys({ KEYS, SHARD: '4' })).toThrow(/shard 4/);
    expect(() => parseKeys({ KEYS, SHARD: 'x' })).toThrow(/SHARD: expected a shard number/);
    // Without ';' the shard does not matter.
    expect(parseKeys({ KEYS: 'a:svc_test_sk_aaaa1111', SHARD: '2' }).map((k) => k.label)).toEqual(['a/test/…1111']);
  });
  it('refuses live keys without ALLOW_LIVE=1, naming them by label only', () => {
    const env = { KEYS: 'a:svc_test_sk_aaaa1111,b:svc_live_sk_secretSECRET9999' };
    let msg = '';
    try {
      parseKeys(env);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/b\/live\/…9999 is a live key/);
    expect(msg).not.toContain('secretSECRET');
    expect(parseKeys({ ...env, ALLOW_LIVE: '1' }).map((k) => k.mode)).toEqual(['test', 'live']);
  });
  it('picks the rate-limit key as paystorm does (last test key of the first merchant)', () => {
    const cases = [
      'a:svc_test_sk_k1aaaaa,a:svc_test_sk_k2aaaaa,b:svc_test_sk_k3aaaaa',
      'b:svc_test_sk_k1aaaaa,a:svc_test_sk_k2aaaaa,b:svc_test_sk_k3aaaaa',
      'a:svc_live_sk_k0aaaaa,b:svc_test_sk_k1aaaaa',
      'a:svc_live_sk_k0aaaaa',
    ];
    for (const KEYS of cases) {
      const keys = parseKeys({ KEYS, ALLOW_LIVE: '1' });
      const ours = rateLimitKeyOf(keys);
      const theirs = paystormRateLimitKeyOf(keys.map((k) => ({ merchant: k.merchant, mode: k.mode, directApi: true, label: k.label })));
      expect(ours?.label ?? null).toBe(theirs?.label ?? null);
    }
  });
  it('reads PRESENTATION, durations, TARGET and weights, refusing bad values', () => {
    expect(parsePresentation({})).toBeNull();
    expect(parsePresentation({ PRESENTATION: 'b' })).toBe('B');
    expect(() => parsePresentation({ PRESENTATION: 'C' })).toThrow(/PRESENTATION/);
    expect(parseDuration({ DURATION: '1h30m' }, 'DURATION', '5m')).toBe('1h30m');
    expect(durationSeconds('1h30m')).toBe(5400);
    expect(() => parseDuration({ DURATION: '10 minutes' }, 'DURATION', '5m')).toThrow(/DURATION/);
    expect(parseTarget({ TARGET: 'http://localhost:8080/' })).toBe('http://localhost:8080');
    expect(() => parseTarget({})).toThrow(/TARGET/);
    expect(parseWeights('direct:1', MIX_OPS, DEFAULT_MIX, 'MIX')).toEqual({ direct: 1, hosted: 0, list: 0, retrieve: 0 });
    expect(() => parseWeights('direct:0', MIX_OPS, DEFAULT_MIX, 'MIX')).toThrow(/at least one/);
    expect(() => parseWeights('refund:1', MIX_OPS, DEFAULT_MIX, 'MIX')).toThrow(/unknown entry "refund"/);
    const w = { direct: 1, hosted: 3, list: 0, retrieve: 0 };
    expect(pickWeighted(w, 0)).toBe('direct');
    expect(pickWeighted(w, 0.3)).toBe('hosted');
    expect(pickWeighted(w, 0.999)).toBe('hosted');
  });
  it('polls within the spec guidance (1 to 3 s), 2 s by default', () => {
    expect(mixedConfig({}).pollIntervalS).toBe(2);
    expect(() => mixedConfig({ POLL_INTERVAL: '0.5' })).toThrow(/POLL_INTERVAL/);
    expect(() => mixedConfig({ POLL_INTERVAL: '5' })).toThrow(/POLL_INTERVAL/);
    expect(LIMITS.pollIntervalMinMs).toBe(1000);
    expect(LIMITS.pollIntervalMaxMs).toBe(3000);
  });
  it('plans the arrival rate at 80% of the per-key limit times the test keys', () => {
    const cfg = mixedConfig({});
    const per = requestsPerIteration(cfg);
    expect(per).toBeGreaterThan(1);
    const one = arrivalPlan({}, 1, cfg);
    expect(one.budgetPerMinute).toBe(0.8 * LIMITS.rateLimitPerWindow);
    expect(one.ratePerMinute).toBe(Math.round((0.8 * 500) / per));
    expect(one.ratePerMinute * per).toBeLessThanOrEqual(0.8 * 500 + per);
    const three = arrivalPlan({ RATE_LIMIT: '100' }, 3, cfg);
    expect(three.budgetPerMinute).toBeCloseTo(240);
    expect(arrivalPlan({ RATE: '0.5' }, 3, cfg).ratePerMinute).toBe(30);
    expect(one.maxVUs).toBeGreaterThanOrEqual(one.preAllocatedVUs);
    // Only Direct API creates with refunds: more requests per iteration, so a lower rate.
    const heavy = mixedConfig({ MIX: 'direct:1', CARD_MIX: 'succeeds:1', REFUND_SHARE: '1' });
    expect(arrivalPlan({}, 1, heavy).ratePerMinute).toBeLessThan(one.ratePerMinute);
  });
});

describe('names the k6 scripts use', () => {
  it('thresholds use paystorm metric names (src/spec/metrics.ts)', () => {
    for (const key of Object.keys(loadThresholds())) expect(Object.keys(METRICS)).toContain(parseMetricKey(key).name);
  });
  it('every check name in k6/ starts with a rule id of rules.md', () => {
    const ids = new Set(RULES.map((r) => r.id));
    const files = [...readdirSync(join(ROOT, 'k6', 'lib')).map((f) => join(ROOT, 'k6', 'lib', f)), ...readdirSync(join(ROOT, 'k6', 'scenarios')).map((f) => join(ROOT, 'k6', 'scenarios', f))].filter((f) => f.endsWith('.ts'));
    let count = 0;
    for (const f of files) {
      const src = readFileSync(f, 'utf8');
      for (const m of src.matchAll(/expect\(\s*'([^']+)'/g)) {
        count++;
        const id = /^([A-Z]+-\d+): \S/.exec(m[1])?.[1];
        expect(id && ids.has(id), `${f}: check "${m[1]}"`).toBe(true);
      }
    }
    expect(count).toBeGreaterThan(40);
  });
});
