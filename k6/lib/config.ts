/**
 * Configuration of the k6 scripts from `__ENV`, as plain functions of an env object.
 * Pure module (no k6 imports): the scripts pass `__ENV`, Node tests pass objects.
 *
 * Key hygiene: a key is only ever shown as its label `merchant/mode/…last4`
 * (src/spec/keys.ts); no error message here contains a secret.
 */
import { parseKeyArg, type Mode } from '../../src/spec/keys.ts';
import { LIMITS } from '../../src/spec/limits.ts';
import type { Presentation } from '../../src/spec/payment.ts';
import { CARD_NUMBER_DESCRIPTION, CARD_NUMBER_PATTERN, CARD_OUTCOMES, DEFAULT_TEST_CARDS, luhnValid, sharedCardNumbers, type CardOutcome, type CardsFile } from '../../src/spec/cards.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** Parses CARDS (the JSON of paystorm's `--cards` file) as src/cli/cards-file.ts does. Unset or empty: the defaults. */
export function parseCards(raw: string | undefined): CardsFile {
  if (raw === undefined || raw.trim() === '') return { ...DEFAULT_TEST_CARDS };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('CARDS: not JSON. Expected an object like {"succeeds":"4242…", "do_not_honor":"…"} (the paystorm cards file).');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('CARDS: expected a JSON object of outcome -> card number.');
  const out: CardsFile = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (!(CARD_OUTCOMES as readonly string[]).includes(k)) {
      throw new Error(`CARDS: unknown outcome "${k}"; allowed: ${CARD_OUTCOMES.join(', ')}.`);
    }
    if (typeof v !== 'string' || !CARD_NUMBER_PATTERN.test(v)) throw new Error(`CARDS: "${k}" must be ${CARD_NUMBER_DESCRIPTION}.`);
    if (!luhnValid(v)) throw new Error(`CARDS: "${k}" is not a card number: its last digit fails the Luhn check (a typo?). Copy the test card number again.`);
    out[k as CardOutcome] = v;
  }
  const [shared] = sharedCardNumbers(out);
  if (shared) throw new Error(`CARDS: "${shared[0]}" is the same number as "${shared[1]}"; each outcome needs its own test card.`);
  return out;
}

export interface KeyConfig {
  /** Never print, log, tag or return this from setup(). */
  secret: string;
  merchant: string;
  mode: Mode;
  label: string;
  /** Position in KEYS. */
  index: number;
}

/**
 * KEYS: comma-separated `[merchant:]KEY`. Keys without a merchant are numbered m1, m2…
 * by position, as paystorm numbers `--key` arguments. A live key (`<word>_live_sk_`) is
 * refused unless ALLOW_LIVE=1.
 */
export function parseKeys(env: Env): KeyConfig[] {
  const raw = keySetOf(env);
  const allowLive = env.ALLOW_LIVE === '1';
  const parts = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const keys = parts.map((p, i) => {
    const k = parseKeyArg(p, `m${i + 1}`);
    return { secret: k.secret, merchant: k.merchant, mode: k.mode, label: k.label, index: i };
  });
  const live = keys.filter((k) => k.mode === 'live');
  if (live.length > 0 && !allowLive) {
    throw new Error(
      `KEYS: ${live.map((k) => k.label).join(', ')} ${live.length > 1 ? 'are live keys' : 'is a live key'} (_live_sk_): live payments move real money. ` +
        'Refusing to run; set ALLOW_LIVE=1 to use live keys (the scripts still create payments only with test keys).',
    );
  }
  return keys;
}

/**
 * This runner's shard number (1-based), for KEYS with one key set per shard: SHARD, else the
 * index k6-operator gives a runner, read from its pod name (`<testrun>-<n>-<suffix>`, the Job
 * `<testrun>-<n>`'s pod; pass it as POD_NAME from the downward API). Null when neither says.
 */
export function shardOf(env: Env): number | null {
  if (env.SHARD !== undefined && env.SHARD !== '') {
    const n = Number(env.SHARD);
    if (!Number.isInteger(n) || n < 1) throw new Error(`SHARD: expected a shard number 1, 2, … (this runner's key set in KEYS), got "${env.SHARD}".`);
    return n;
  }
  const m = /-(\d+)-[a-z0-9]{5}$/.exec(env.POD_NAME ?? '');
  return m ? Number(m[1]) : null;
}

/**
 * KEYS may hold one key set per shard, separated by `;` (`m1:k1,m2:k2;m1:k3,m2:k4`): each
 * runner uses the set of its shard (shardOf), so no key is shared between runners and each
 * shard's view of a key's rate limit is the whole of that key's traffic.
 */
function keySetOf(env: Env): string {
  const raw = env.KEYS ?? '';
  if (raw.indexOf(';') < 0) return raw;
  const sets = raw.split(';').map((s) => s.trim());
  const shard = shardOf(env);
  if (shard === null) {
    throw new Error(`KEYS has ${sets.length} key sets (separated by ';'), one per shard, but this runner's shard is unknown: set SHARD=1..${sets.length}, or POD_NAME (k6-operator runner pods: from the downward API, metadata.name).`);
  }
  if (shard > sets.length) throw new Error(`KEYS has ${sets.length} key sets (separated by ';') but this runner is shard ${shard}: give one key set per runner (parallelism).`);
  return sets[shard - 1];
}

export function testKeysOf(keys: readonly KeyConfig[]): KeyConfig[] {
  return keys.filter((k) => k.mode === 'test');
}

/**
 * The key the rate-limit script exhausts: the last test key of the first merchant,
 * the same rule as paystorm's scenarios/lib/keys.ts (rateLimitKeyOf).
 */
export function rateLimitKeyOf(keys: readonly KeyConfig[]): KeyConfig | null {
  const tk = testKeysOf(keys);
  if (tk.length === 0) return null;
  const own = tk.filter((k) => k.merchant === tk[0].merchant);
  return own[own.length - 1];
}

/** PRESENTATION: A or B; unset means "detect from the first payment". */
export function parsePresentation(env: Env): Presentation | null {
  const v = (env.PRESENTATION ?? '').trim().toUpperCase();
  if (v === '') return null;
  if (v === 'A' || v === 'B') return v;
  throw new Error(`PRESENTATION: expected A or B (or unset to detect), got "${env.PRESENTATION}".`);
}

const DURATION_RE = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

/** A k6 duration string (Go syntax, e.g. 30s, 5m, 1h30m). */
export function parseDuration(env: Env, name: string, dflt: string): string {
  const v = (env[name] ?? '').trim();
  if (v === '') return dflt;
  if (!DURATION_RE.test(v)) throw new Error(`${name}: expected a duration like 30s, 5m or 1h30m, got "${v}".`);
  return v;
}

export function durationSeconds(d: string): number {
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(d)) !== null) {
    const n = parseFloat(m[1]);
    total += m[2] === 'h' ? n * 3600 : m[2] === 'm' ? n * 60 : m[2] === 's' ? n : n / 1000;
  }
  return total;
}

export function parseNumber(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name}: expected a number from ${min} to ${max}, got "${raw}".`);
  return n;
}

/** TARGET: the base URL, without a trailing slash. Checked at run time (setup), not in the init context. */
export function parseTarget(env: Env): string {
  const v = (env.TARGET ?? '').trim();
  if (!/^https?:\/\/[^\s/]+/.test(v)) throw new Error('TARGET: set the base URL of the service, e.g. TARGET=http://localhost:8080 (paths start with /v1).');
  return v.replace(/\/+$/, '');
}

// ---------------------------------------------------------------- weighted choices

export type Weights<K extends string> = Record<K, number>;

/** Parses `a:3,b:1` over the allowed names; names left out get weight 0. */
export function parseWeights<K extends string>(raw: string | undefined, allowed: readonly K[], dflt: Weights<K>, name: string): Weights<K> {
  if (raw === undefined || raw.trim() === '') return { ...dflt };
  const out = Object.fromEntries(allowed.map((k) => [k, 0])) as Weights<K>;
  for (const part of raw.split(',')) {
    const [k, w] = part.split(':').map((s) => s.trim());
    if (!(allowed as readonly string[]).includes(k)) throw new Error(`${name}: unknown entry "${k}"; allowed: ${allowed.join(', ')}.`);
    const n = Number(w);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: weight of "${k}" must be a number >= 0.`);
    out[k as K] = n;
  }
  if (allowed.every((k) => out[k] === 0)) throw new Error(`${name}: at least one weight must be above 0.`);
  return out;
}

/** Picks by weight with `r` in [0,1). */
export function pickWeighted<K extends string>(weights: Weights<K>, r: number): K {
  const entries = (Object.keys(weights) as K[]).filter((k) => weights[k] > 0);
  const total = entries.reduce((s, k) => s + weights[k], 0);
  let x = r * total;
  for (const k of entries) {
    x -= weights[k];
    if (x < 0) return k;
  }
  return entries[entries.length - 1];
}

// ---------------------------------------------------------------- the mixed load

export const MIX_OPS = ['direct', 'hosted', 'list', 'retrieve'] as const;
export type MixOp = (typeof MIX_OPS)[number];
/** paystorm's mixed weights (scenarios/lib/mixed-load.ts DEFAULT_WEIGHTS: 8/2/5/5). */
export const DEFAULT_MIX: Weights<MixOp> = { direct: 8, hosted: 2, list: 5, retrieve: 5 };

/** Card outcomes the mixed load uses (upstream_error is a chaos matter: paystorm's). */
export const LOAD_OUTCOMES = ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge'] as const;
export type LoadOutcome = (typeof LOAD_OUTCOMES)[number];
/** paystorm's card deck: 7 in 10 succeed, one each of the other designated outcomes. */
export const DEFAULT_CARD_MIX: Weights<LoadOutcome> = { succeeds: 70, do_not_honor: 10, insufficient_funds: 10, three_ds_challenge: 10 };

/** What follows a refunded payment; paystorm's refund deck (3 of 5 succeeded payments get one of these). */
export const REFUND_PLANS = ['partial', 'full', 'partial-then-rest'] as const;
export type RefundPlan = (typeof REFUND_PLANS)[number];

export interface MixedConfig {
  mix: Weights<MixOp>;
  cardMix: Weights<LoadOutcome>;
  /** Share of succeeded Direct API payments that get refunded (by one of REFUND_PLANS, evenly). */
  refundShare: number;
  /** Refund path: one of the two, or `both` alternating as paystorm does (the spec names both). */
  refundPath: 'payment' | 'refunds' | 'both';
  /**
   * Drive paystorm's sandbox pages (src/spec/sandbox.ts: complete 3DS challenges, submit
   * hosted pages), so those payments settle too. `auto`: try, and stop for the VU after
   * the first answer that is not the protocol's 303.
   */
  sandboxDriver: 'auto' | 'off';
  /** Seconds between polls; the spec's guidance is 1-3 s (2-3 s and 1-2 s in two guides), 2 s fits both. */
  pollIntervalS: number;
  /** Give up waiting for a payment to settle after this (SM-6: "within seconds"). */
  settleMaxWaitS: number;
  /** Give up waiting for refunds to settle after this. */
  refundMaxWaitS: number;
  currency: string;
  requestTimeout: string;
}

export function mixedConfig(env: Env): MixedConfig {
  const refundPath = (env.REFUND_PATH ?? 'both').trim();
  if (refundPath !== 'payment' && refundPath !== 'refunds' && refundPath !== 'both') {
    throw new Error('REFUND_PATH: expected payment (POST /v1/payments/{id}/refund), refunds (POST /v1/refunds) or both (alternating).');
  }
  const driver = (env.SANDBOX_DRIVER ?? 'auto').trim();
  if (driver !== 'auto' && driver !== 'off') throw new Error('SANDBOX_DRIVER: expected auto or off.');
  const currency = (env.CURRENCY ?? 'EUR').trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error('CURRENCY: expected a three-letter ISO 4217 code.');
  return {
    mix: parseWeights(env.MIX, MIX_OPS, DEFAULT_MIX, 'MIX'),
    cardMix: parseWeights(env.CARD_MIX, LOAD_OUTCOMES, DEFAULT_CARD_MIX, 'CARD_MIX'),
    refundShare: parseNumber(env, 'REFUND_SHARE', 0.6, 0, 1),
    refundPath,
    sandboxDriver: driver,
    pollIntervalS: parseNumber(env, 'POLL_INTERVAL', 2, LIMITS.pollIntervalMinMs / 1000, LIMITS.pollIntervalMaxMs / 1000),
    settleMaxWaitS: parseNumber(env, 'SETTLE_MAX_WAIT', 30, 1, 600),
    refundMaxWaitS: parseNumber(env, 'REFUND_MAX_WAIT', 15, 1, 600),
    currency,
    requestTimeout: parseDuration(env, 'REQUEST_TIMEOUT', '30s'),
  };
}

/** Expected polls until a Direct API payment settles ("usually within seconds"). */
export const EXPECTED_POLLS = 2;

/**
 * Requests one mixed iteration sends on average, from the weights. Used to turn the
 * per-key request budget into an iteration rate; `rate_limited` (threshold rate<0.01)
 * tells when the estimate was too low for the target.
 */
export function requestsPerIteration(cfg: Pick<MixedConfig, 'mix' | 'cardMix' | 'refundShare' | 'sandboxDriver'>): number {
  const m = cfg.mix;
  const mTotal = MIX_OPS.reduce((s, k) => s + m[k], 0);
  const c = cfg.cardMix;
  const cTotal = LOAD_OUTCOMES.reduce((s, k) => s + c[k], 0) || 1;
  const driver = cfg.sandboxDriver !== 'off';
  // A 3DS payment that the driver completes succeeds like the others (and is polled twice as long).
  const pSucceed = (c.succeeds + (driver ? c.three_ds_challenge : 0)) / cTotal;
  const p3ds = c.three_ds_challenge / cTotal;
  // Refund plans create 1, 1 or 2 refunds (4/3 on average), then poll until they settle.
  const refunds = cfg.refundShare * (4 / 3 + EXPECTED_POLLS);
  const direct = 1 + EXPECTED_POLLS + (driver ? p3ds * EXPECTED_POLLS : 0) + pSucceed * refunds;
  // create + one retrieval (+ polls until the submitted page settles).
  const hosted = 2 + (driver ? EXPECTED_POLLS : 0);
  const list = 1;
  const retrieve = 1;
  return (m.direct * direct + m.hosted * hosted + m.list * list + m.retrieve * retrieve) / mTotal;
}

export interface ArrivalPlan {
  /** Iterations per second over the whole test (all k6 instances together). */
  iterationsPerSecond: number;
  /** k6 `rate` with `timeUnit: '1m'` (an integer). */
  ratePerMinute: number;
  /** The per-key request budget the default rate was derived from. */
  budgetPerMinute: number;
  requestsPerIteration: number;
  preAllocatedVUs: number;
  maxVUs: number;
}

/** Share of each key's limit the load scenarios aim at. */
export const LOAD_SHARE = 0.8;

/**
 * RATE (iterations per second, as paystorm's --rate) or, unset, 80% of the per-key
 * limit (RATE_LIMIT, default the spec's sandbox 500/min) times the number of test keys,
 * divided by the requests one iteration sends. KEYS may be unset when k6 only archives
 * or inspects the script (k6-operator's initializer): then one key is assumed, so pass
 * RATE explicitly in that setting.
 */
export function arrivalPlan(env: Env, testKeyCount: number, cfg: MixedConfig): ArrivalPlan {
  const limit = parseNumber(env, 'RATE_LIMIT', LIMITS.rateLimitPerWindow, 1, 1e9);
  const perIter = requestsPerIteration(cfg);
  const windowMin = LIMITS.rateWindowMs / 60_000;
  const budgetPerMinute = (LOAD_SHARE * limit * Math.max(1, testKeyCount)) / windowMin;
  const dflt = budgetPerMinute / 60 / perIter;
  const ips = parseNumber(env, 'RATE', dflt, 0.001, 1e6);
  const ratePerMinute = Math.max(1, Math.round(ips * 60));
  // An iteration usually lasts a few polls; the slowest wait for settlement and refunds.
  const typicalS = (EXPECTED_POLLS + 1) * cfg.pollIntervalS + 2;
  const worstS = cfg.settleMaxWaitS + cfg.refundMaxWaitS + 2 * durationSeconds(cfg.requestTimeout);
  const perSecond = ratePerMinute / 60;
  const preAllocatedVUs = Math.max(2, Math.ceil(perSecond * typicalS));
  const maxVUs = Math.max(preAllocatedVUs, Math.min(5000, Math.ceil(perSecond * worstS) + 5));
  return { iterationsPerSecond: ips, ratePerMinute, budgetPerMinute, requestsPerIteration: perIter, preAllocatedVUs, maxVUs };
}
