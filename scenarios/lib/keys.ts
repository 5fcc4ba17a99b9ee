/**
 * Which key each scenario uses. Keys are chosen so scenarios do not starve each other:
 * the rate-limit scenario owns the last test key of the first merchant (it exhausts it
 * on purpose); every other scenario spreads its load over the remaining test keys, and
 * uses live keys only for read-only and single-payment checks.
 */
import type { KeyHandle, ScenarioContext } from '../../src/spec/scenario.ts';
import type { KeyInfo } from '../../src/history/schema.ts';

type KeyLike = Pick<KeyInfo, 'merchant' | 'mode' | 'directApi' | 'label'>;

/** The key the rate-limit scenario exhausts: the last test key of the first merchant. */
export function rateLimitKeyOf<K extends KeyLike>(testKeys: readonly K[]): K | null {
  const tk = testKeys.filter((k) => k.mode === 'test');
  if (tk.length === 0) return null;
  const merchant = tk[0].merchant;
  const own = tk.filter((k) => k.merchant === merchant);
  return own[own.length - 1];
}

/**
 * Test keys for load, without the rate-limit key (unless it is the only test key), and
 * without keys known not to have Direct API access.
 */
export function loadKeysOf<K extends KeyLike>(testKeys: readonly K[]): K[] {
  const tk = testKeys.filter((k) => k.mode === 'test' && k.directApi !== false);
  const rl = rateLimitKeyOf(testKeys);
  const rest = tk.filter((k) => k !== rl);
  if (rest.length > 0) return rest;
  return tk.length > 0 ? tk : testKeys.filter((k) => k.mode === 'test');
}

export function rateLimitKey(ctx: ScenarioContext): KeyHandle | null {
  return rateLimitKeyOf(ctx.testKeys);
}

export function loadKeys(ctx: ScenarioContext): KeyHandle[] {
  return loadKeysOf(ctx.testKeys);
}

/** Live keys (present only with --allow-live or on the embedded target). */
export function liveKeys(ctx: ScenarioContext): KeyHandle[] {
  return ctx.keys.filter((k) => k.mode === 'live');
}

/** A live key of the merchant of `k`, else any live key. */
export function liveKeyFor(ctx: ScenarioContext, k: KeyHandle): KeyHandle | null {
  const live = liveKeys(ctx).filter((x) => x.directApi !== false);
  return live.find((x) => x.merchant === k.merchant) ?? live[0] ?? null;
}

/** A test key of another merchant than `k`'s, for isolation checks (SEC-1). */
export function otherMerchantKey(ctx: ScenarioContext, k: KeyHandle): KeyHandle | null {
  const rl = rateLimitKey(ctx);
  const others = ctx.testKeys.filter((x) => x.merchant !== k.merchant);
  return others.find((x) => x !== rl) ?? others[0] ?? null;
}

/** Another test key than `k` (any merchant), preferring one not owned by the rate-limit scenario. */
export function secondTestKey(ctx: ScenarioContext, k: KeyHandle): KeyHandle | null {
  const rl = rateLimitKey(ctx);
  const others = ctx.testKeys.filter((x) => x !== k && x.directApi !== false);
  return others.find((x) => x !== rl) ?? others[0] ?? null;
}

/** Facts about the run's keys that decide which rules a scenario can exercise. */
export function keyFacts(keys: readonly KeyLike[]): { testKeys: number; loadKeys: number; merchants: number; live: boolean; twoTestKeys: boolean } {
  const test = keys.filter((k) => k.mode === 'test');
  return {
    testKeys: test.length,
    loadKeys: loadKeysOf(test).length,
    merchants: new Set(test.map((k) => k.merchant)).size,
    live: keys.some((k) => k.mode === 'live' && k.directApi !== false),
    twoTestKeys: test.filter((k) => k.directApi !== false).length >= 2,
  };
}
