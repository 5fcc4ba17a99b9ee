/**
 * The bundled k6 scripts, run under the Node shim of k6's API (test/k6/shim) against
 * the reference service (src/target) and a tiny stub. What this proves: each script's
 * request sequence (auth, idempotency keys, bodies in the target's presentation, polls,
 * refunds) and that its checks pass on a conforming target and fail on a target with a
 * seeded bug of the rule they name. What it does not prove: anything about k6 itself
 * (its executors, arrival-rate pacing, thresholds evaluation, parallel VUs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startReferenceService, DEFAULT_KEYS, type RunningService } from '../../src/target/index.ts';
import { RULES } from '../../src/spec/rules.ts';
import { OPERATIONS } from '../../src/spec/operations.ts';
import { buildBundles, failedChecks, FOLDED_CHECK, removeBundles, RULE_CHECK, ruleTally, runShim, type ShimResult } from './helpers.ts';
import { StubService } from './stub-service.ts';

const key = (merchant: string, prefix: string) => DEFAULT_KEYS.find((k) => k.merchant === merchant && k.key.startsWith(prefix) && k.direct_api)!.key;
const ACME_SVC = key('acme', 'svc_test_sk_');
const ACME_API = key('acme', 'api_test_sk_');
const GLOBEX = key('globex', 'svc_test_sk_');
const KEYS = `acme:${ACME_SVC},acme:${ACME_API},globex:${GLOBEX}`;
const SECRETS = [ACME_SVC, ACME_API, GLOBEX];

let dir = '';
beforeAll(() => {
  dir = buildBundles();
});
afterAll(removeBundles);

const ruleIds = new Set(RULES.map((r) => r.id));

/**
 * Shared assertions on any run: it ran, check names cite rules (a rule's own check, or one
 * folded per answer naming an operation and the rules checked), nothing printed or sent back a key.
 */
function sane(r: ShimResult, secrets: readonly string[] = SECRETS): void {
  expect(r.fatal, r.output).toBeNull();
  expect(r.iterationErrors, r.output).toEqual([]);
  for (const name of Object.keys(r.checks)) {
    const folded = FOLDED_CHECK.exec(name);
    const ids = folded ? folded[2].split(' ') : [RULE_CHECK.exec(name)?.[1]];
    if (folded) expect(OPERATIONS, `check "${name}" does not name an operation`).toContain(folded[1]);
    for (const id of ids) expect(id !== undefined && ruleIds.has(id), `check "${name}" does not cite rule ids of rules.md`).toBe(true);
  }
  const printed = r.output + JSON.stringify(r.logs) + JSON.stringify(r.setupData);
  for (const s of secrets) expect(printed).not.toContain(s);
  for (const q of r.requests) {
    // The one tag the scripts add is paystorm's `op` (no path or id: src/history/k6-tags.ts).
    expect(Object.keys(q.tags)).toEqual(['op']);
    // Sandbox pages are what a customer's browser sees: the API key never goes there.
    if (q.tags.op === 'complete_3ds' || q.tags.op === 'submit_hpp') {
      expect(q.headers.Authorization).toBeUndefined();
      continue;
    }
    expect(q.headers.Authorization).toMatch(/^Bearer …[A-Za-z0-9]{4}$/);
    // Every POST carries an Idempotency-Key, except the IDEM-1 probe, which must be refused.
    if (q.method === 'POST' && !('Idempotency-Key' in q.headers)) expect(q.status, `POST ${q.url} without Idempotency-Key`).toBe(400);
    expect(q.tags.op).toMatch(/^(create|create_hpp|retrieve|list|refund|refund_create)$/);
  }
}

const run = (script: string, env: Record<string, string>, opts: Parameters<typeof runShim>[2] = {}) => runShim(join(dir, `${script}.js`), env, { sleepScale: 0.05, ...opts });

describe.each(['A', 'B'] as const)('k6 scripts against the reference service, presentation %s', (presentation) => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startReferenceService({ port: 0, presentation, timeScale: 0.02 });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('mixed: detects the presentation, creates, polls until settled, refunds; every check holds', async () => {
    const r = await run('mixed', { TARGET: svc.url, KEYS }, { iterations: 25 });
    sane(r);
    expect(failedChecks(r), r.output).toEqual([]);
    expect(r.setupData).toMatchObject({ presentation, limit: 500 });
    const creates = r.requests.filter((q) => q.method === 'POST' && new URL(q.url).pathname === '/v1/payments');
    expect(creates.length).toBeGreaterThan(0);
    for (const c of creates) {
      const body = JSON.parse(c.body ?? '{}') as Record<string, unknown>;
      // The body speaks the detected presentation's input form.
      if (presentation === 'A') expect(Object.keys(body)).toEqual(expect.arrayContaining(['payment_method_data', 'billing_details', 'return_url']));
      else expect(Object.keys(body)).toEqual(expect.arrayContaining(['card', 'customer']));
    }
    // Keys rotate over the test keys.
    const used = new Set(r.requests.filter((q) => q.headers.Authorization).map((q) => q.headers.Authorization));
    expect(used.size).toBe(3);
  });

  it('mixed drives the sandbox pages: hosted pages paid, 3DS challenges completed, without the API key', async () => {
    const hosted = await run('mixed', { TARGET: svc.url, KEYS, MIX: 'hosted:1' }, { iterations: 3 });
    sane(hosted);
    expect(failedChecks(hosted), hosted.output).toEqual([]);
    expect(hosted.requests.filter((q) => q.tags.op === 'submit_hpp' && q.status === 303).length).toBe(3);
    expect(ruleTally(hosted)['TEST-3']?.passes).toBe(3);
    const threeDs = await run('mixed', { TARGET: svc.url, KEYS, MIX: 'direct:1', CARD_MIX: 'three_ds_challenge:1', REFUND_SHARE: '0' }, { iterations: 2 });
    sane(threeDs);
    expect(failedChecks(threeDs), threeDs.output).toEqual([]);
    expect(threeDs.requests.filter((q) => q.tags.op === 'complete_3ds' && q.status === 303).length).toBe(2);
    expect(ruleTally(threeDs)['SM-4']?.passes).toBe(2);
    expect(threeDs.metrics.settle_time.values.length).toBe(2);
  });

  it('mixed, forced to Direct API creates with refunds: polls follow the guidance and settle_time is recorded', async () => {
    // 8 iterations: only succeeded payments are refunded, and the alternation below needs two (with 6,
    // about one run in 200 drew at most one succeeds card: a clean-clone CI failure).
    const r = await run('mixed', { TARGET: svc.url, KEYS, MIX: 'direct:1', CARD_MIX: 'succeeds:3,do_not_honor:1', REFUND_SHARE: '1', PRESENTATION: presentation }, { iterations: 8 });
    sane(r);
    expect(failedChecks(r), r.output).toEqual([]);
    expect(r.metrics.settle_time.values.length).toBe(8);
    expect(r.metrics.settle_time.isTime).toBe(true);
    for (const id of ['SM-3', 'SM-6']) expect(ruleTally(r)[id]?.passes, id).toBe(8);
    expect(ruleTally(r)['REF-1']?.passes).toBeGreaterThan(0);
    // PRESENTATION given: no detection requests before the first create.
    expect(r.requests[0].method).toBe('GET'); // the X-RateLimit-Limit probe
    expect(new URL(r.requests[1].url).pathname).toBe('/v1/payments');
    expect(r.requests[1].method).toBe('POST');
    // REFUND_PATH=both (the default): refunds alternate between the two refund paths.
    const refunds = r.requests.filter((q) => q.method === 'POST' && /\/refunds?$/.test(new URL(q.url).pathname));
    expect(refunds.length).toBeGreaterThanOrEqual(2);
    expect(new Set(refunds.map((q) => q.tags.op))).toEqual(new Set(['refund', 'refund_create']));
  });

  it('idempotency: replays, conflicts, scopes and the parallel burst; every check holds', async () => {
    const r = await run('idempotency', { TARGET: svc.url, KEYS });
    sane(r);
    expect(failedChecks(r), r.output).toEqual([]);
    for (const id of ['IDEM-1', 'IDEM-2', 'IDEM-3', 'IDEM-4', 'IDEM-5', 'IDEM-6', 'IDEM-7', 'IDEM-8', 'IDEM-9', 'IDEM-10', 'REF-7']) {
      expect(Object.keys(r.checks).some((n) => n.startsWith(`${id}: `)), id).toBe(true);
    }
  });
});

describe('rate-limit script against the reference service', () => {
  it('drives one key past the limit: 429 form, window arithmetic, another key unaffected, Retry-After honest', async () => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, rateLimit: 15, windowMs: 1000 });
    try {
      const r = await run('rate-limit', { TARGET: svc.url, KEYS }, { sleepScale: 1 });
      sane(r);
      expect(failedChecks(r), r.output).toEqual([]);
      expect(r.metrics.rate_limited.values.some((v) => v === 1)).toBe(true);
      // It exhausts the last test key of the first merchant (paystorm's rule), and checks RL-9 with the other acme key.
      expect(r.logs.map((l) => l.text).join('\n')).toContain(`acme/test/…${ACME_API.slice(-4)}`);
      expect(r.checks['RL-9: exhausting one key never gives 429 to another key']?.passes).toBe(1);
      expect(r.checks['RL-8: a request sent after Retry-After has elapsed is not refused']?.passes).toBe(1);
    } finally {
      await svc.close();
    }
  });
});

/**
 * Seeded bugs of the reference service (src/target/bugs.ts): each breaks one rule; the
 * script that covers the rule must fail the check named after it.
 */
const SEEDED: { bug: string; script: string; env?: Record<string, string>; check: string; iterations?: number }[] = [
  { bug: 'rl-off-by-one', script: 'rate-limit', check: 'RL-1: non-429 responses in one window never exceed X-RateLimit-Limit' },
  { bug: 'rl-no-retry-after', script: 'rate-limit', check: 'RL-7: a 429 carries Retry-After in seconds' },
  { bug: 'rl-remaining-negative', script: 'rate-limit', check: 'RL-5: X-RateLimit-Remaining is never negative' },
  { bug: 'rl-shared-merchant-counter', script: 'rate-limit', check: 'RL-9: exhausting one key never gives 429 to another key' },
  { bug: 'rl-retry-after-zero', script: 'rate-limit', check: 'RL-8: a request sent after Retry-After has elapsed is not refused' },
  { bug: 'idem-missing-key-accepted', script: 'idempotency', check: 'IDEM-1: a POST without Idempotency-Key gives 400 parameter_missing' },
  { bug: 'idem-body-ignored', script: 'idempotency', check: 'IDEM-4: same key, different body gives 409 idempotency_error (reused or in_use)' },
  { bug: 'idem-caches-errors', script: 'idempotency', check: 'IDEM-7: after an error response the same key executes again' },
  { bug: 'idem-global-scope', script: 'idempotency', check: 'IDEM-8: one key value under another API key is an independent request' },
  { bug: 'idem-dedupes-merchant-reference', script: 'idempotency', check: 'IDEM-10: one merchant_reference with two keys gives two payments' },
  { bug: 'err-missing-request-id', script: 'idempotency', check: 'ERR-1: an error body has type, code, message, param, decline_code, doc_url and a req_ request_id' },
  { bug: 'pay-decline-code-generic', script: 'mixed', env: { MIX: 'direct:1', CARD_MIX: 'do_not_honor:1' }, check: 'PAY-16: a failed payment carries its designated decline code' },
  { bug: 'test-decline-422', script: 'mixed', env: { MIX: 'direct:1', CARD_MIX: 'insufficient_funds:1' }, check: 'TEST-1: sandbox cards give 201 in test mode, never a synchronous 422' },
  { bug: 'pay-leaks-card-number', script: 'mixed', env: { MIX: 'direct:1', CARD_MIX: 'succeeds:1', REFUND_SHARE: '0' }, check: 'PAY-9: no full card number is returned' },
  // One key, so the lists see this VU's own hosted payments (whose creation order it knows).
  { bug: 'pay-next-action-stale', script: 'mixed', env: { MIX: 'direct:1', CARD_MIX: 'three_ds_challenge:1', REFUND_SHARE: '0' }, check: 'PAY-11: next_action is non-null exactly when requires_action, with type redirect and a redirect_url', iterations: 2 },
  { bug: 'list-oldest-first', script: 'mixed', env: { MIX: 'hosted:1,list:1', KEYS: `acme:${ACME_SVC}` }, check: 'LIST-2: data is newest first', iterations: 30 },
];

describe('k6 script checks fail on the reference service with a seeded bug', () => {
  it.each(SEEDED)('$bug -> $script fails "$check"', async ({ bug, script, env, check, iterations }) => {
    const rl = script === 'rate-limit';
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, bugs: [bug], ...(rl ? { rateLimit: 12, windowMs: 1000 } : {}) });
    try {
      const r = await run(script, { TARGET: svc.url, KEYS, ...env }, { iterations: iterations ?? (script === 'mixed' ? 8 : 1), sleepScale: rl ? 1 : 0.05 });
      expect(r.fatal, r.output).toBeNull();
      expect(r.checks[check], `no check "${check}" recorded`).toBeDefined();
      expect(r.checks[check].fails, `${bug} went unnoticed`).toBeGreaterThan(0);
    } finally {
      await svc.close();
    }
  });
});

describe('mixed writes the checks on one answer as one k6 check (k6/lib/checks.ts)', () => {
  /** Point lines of a --out json file. */
  const pointsOf = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"Point"'))
      .map((l) => JSON.parse(l) as { metric: string; data: { value: number; tags: Record<string, string> } });

  it('a conforming service: one passing check per answer at most, naming the operation and the rules checked; thresholds hold (exit 0)', async () => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02 });
    const out = join(mkdtempSync(join(tmpdir(), 'paystorm-k6-fold-')), 'run.k6.json');
    try {
      // Each iteration picks its flow at random: at 10 iterations a run without a list (or hosted)
      // flow, and so without some of the rules below, came about one time in five; at 40, about one in
      // three thousand.
      const r = await run('mixed', { TARGET: svc.url, KEYS, MIX: 'direct:2,hosted:1,list:1,retrieve:1', REFUND_SHARE: '1' }, { iterations: 40, jsonOut: out });
      sane(r);
      expect(r.exitCode, r.output).toBe(0);
      const points = pointsOf(out);
      const checks = points.filter((p) => p.metric === 'checks');
      const answers = points.filter((p) => p.metric === 'http_reqs' && p.data.tags.op !== 'complete_3ds' && p.data.tags.op !== 'submit_hpp');
      expect(checks.length).toBeGreaterThan(0);
      expect(checks.length).toBeLessThanOrEqual(answers.length);
      for (const c of checks) {
        expect(c.data.value).toBe(1);
        expect(c.data.tags.check).toMatch(FOLDED_CHECK);
      }
      // The rules the flows check all appear in some folded check.
      for (const id of ['RL-4', 'ERR-5', 'SEC-2', 'PAY-1', 'PAY-8', 'SM-1', 'SM-6', 'LIST-1', 'REF-1']) expect(ruleTally(r)[id]?.passes ?? 0, id).toBeGreaterThan(0);
    } finally {
      await svc.close();
      rmSync(dirname(out), { recursive: true, force: true });
    }
  });

  it('a wrong answer fails its folded check and the failed rule\'s own check, and crosses the checks threshold (exit 99)', async () => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, bugs: ['pay-decline-code-generic'] });
    try {
      const r = await run('mixed', { TARGET: svc.url, KEYS, MIX: 'direct:1', CARD_MIX: 'do_not_honor:1' }, { iterations: 4 });
      expect(r.fatal, r.output).toBeNull();
      expect(r.checks['PAY-16: a failed payment carries its designated decline code']).toEqual({ passes: 0, fails: 4 });
      const folded = Object.entries(r.checks).filter(([name, c]) => c.fails > 0 && FOLDED_CHECK.test(name));
      expect(folded.length, JSON.stringify(r.checks)).toBeGreaterThan(0);
      for (const [name] of folded) expect(name.split(' ')).toContain('PAY-16');
      expect(r.exitCode, r.output).toBe(99);
      expect(r.output).toMatch(/thresholds on metrics '[^']*checks[^']*' have been crossed/);
    } finally {
      await svc.close();
    }
  });
});

describe('k6 scripts against a minimal stub (no reference service involved)', () => {
  it('mixed reads Go-canonical header names (X-Ratelimit-Limit) and passes on a conforming stub', async () => {
    const stub = new StubService({ presentation: 'B' });
    const url = await stub.start();
    try {
      const stubKeys = 'm1:svc_test_sk_stubStubStub0001';
      const r = await run('mixed', { TARGET: url, KEYS: stubKeys, MIX: 'direct:2,hosted:1,list:1,retrieve:1' }, { iterations: 12 });
      sane(r, ['svc_test_sk_stubStubStub0001']);
      expect(failedChecks(r), r.output).toEqual([]);
      // The shim canonicalises like Go; the script must still find the rate headers.
      expect(Object.keys(r.requests[0].responseHeaders)).toContain('X-Ratelimit-Limit');
      expect(ruleTally(r)['RL-4'].fails).toBe(0);
      expect(ruleTally(r)['RL-4'].passes).toBeGreaterThan(0);
      // The server saw exactly what the shim recorded, with the key on every /v1 call.
      expect(stub.requests.length).toBe(r.requests.length);
      expect(stub.requests.filter((q) => q.path.startsWith('/v1/')).every((q) => q.headers.authorization === 'Bearer svc_test_sk_stubStubStub0001')).toBe(true);
      // The stub has no sandbox pages: the driver says so once and stops (SANDBOX_DRIVER=auto).
      const driverCalls = r.requests.filter((q) => q.tags.op === 'submit_hpp' || q.tags.op === 'complete_3ds');
      expect(driverCalls.length).toBeLessThanOrEqual(1);
      if (driverCalls.length) expect(r.logs.some((l) => l.level === 'warn' && /sandbox driver: .* answered 40\d, not 303/.test(l.text))).toBe(true);
    } finally {
      await stub.stop();
    }
  });

  it('the shim\'s K6SHIM_SEED makes the mix of operations the same every run (as k6\'s randomSeed)', async () => {
    // A fresh stub each run: what the setup finds there (an existing payment or none) changes the draws.
    const ops = async (seed: number) => {
      const stub = new StubService({ presentation: 'B' });
      const url = await stub.start();
      try {
        const env = { TARGET: url, KEYS: 'm1:svc_test_sk_stubStubStub0001', MIX: 'direct:2,hosted:1,list:1,retrieve:1' };
        return (await run('mixed', env, { iterations: 12, seed })).requests.map((q) => `${q.method} ${q.tags.op ?? ''}`).join('|');
      } finally {
        await stub.stop();
      }
    };
    const [a, b, c] = [await ops(7), await ops(7), await ops(8)];
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('mixed catches refunded_amount counting pending refunds (REF-2) on the stub', async () => {
    const stub = new StubService({ presentation: 'B', bugs: { refundedCountsPending: true } });
    const url = await stub.start();
    try {
      const r = await run('mixed', { TARGET: url, KEYS: 'svc_test_sk_stubStubStub0002', MIX: 'direct:1', CARD_MIX: 'succeeds:1', REFUND_SHARE: '1', REFUND_MAX_WAIT: '1' }, { iterations: 2 });
      expect(r.fatal).toBeNull();
      expect(r.checks['REF-2: refunded_amount is the sum of succeeded refunds only']?.fails).toBeGreaterThan(0);
    } finally {
      await stub.stop();
    }
  });
});
