/**
 * Step 0 of `paystorm run`: the run's settings, read from its config before anything starts,
 * so a bad flag stops the run before a port is opened or a request sent.
 */
import { join, resolve } from 'node:path';
import { DEFAULT_SETTLE_BOUND_MS, DEFAULT_TEST_CARDS, EXIT, PaystormError, CARD_OUTCOMES, LIMITS, parseKeyArg, parseProxyArg, uniqueLabels, type CardOutcome, type CardsFile, type FaultStep, type ParsedKey, type Presentation, type ProxySpec, type Scenario } from '../../spec/index.ts';
import { NO_RETRY_SEEN_WAIT_MS } from '../../spec/tolerances.ts';
import { newRunId } from '../../engine/index.ts';
import { parseFaultSchedule } from '../../chaos/fault-schedule.ts';
import { HISTORY_FILE } from '../../history/index.ts';
import { scaledDelays } from '../../target/options.ts';
import { variantByName, VARIANT_NAMES, type ServiceVariant } from '../../target/variants.ts';
import { loadBaseline, type Baseline } from '../../oracle/baseline.ts';
import { INVARIANTS } from '../../oracle/invariants/index.ts';
import { RULE_IDS } from '../../spec/rules.ts';
import { SCENARIOS, scenarioByName } from '../../../scenarios/index.ts';
import { loadCardsFile, type RunConfig } from '../config.ts';
import { parseDuration } from '../duration.ts';
import { EMBEDDED_ONLY, variantConflicts } from '../run-checks.ts';
import { isScenarioPath, loadScenarioFile } from '../scenario-file.ts';
import type { RunIo } from './scope.ts';
import { judgeMemoryMbOf } from '../live/judge-memory.ts';

/** The embedded default run: a scaled window so the default suite takes about a minute. */
export const EMBEDDED_DEFAULTS = Object.freeze({
  presentation: 'B' as Presentation,
  rateLimit: 120,
  windowMs: 3_000,
  timeScale: 0.05,
});

/** The embedded service's webhook acknowledge time-out (the spec's 10 s, scaled so retries show within a run). */
export const EMBEDDED_WEBHOOK_ACK_MS = 500;
/**
 * Share of test-mode events whose deliveries the receiver fails (500) unless --webhook-fail-share
 * says otherwise, on any target: without failures WH-8 and WH-9 are never judged, and a service
 * that never retries, or retries under a new event id, would pass. Live events are never failed.
 */
export const WEBHOOK_FAIL_SHARE_DEFAULT = 0.2;
/** The embedded service's webhook endpoints live under this receiver path (`/webhooks/test`, `/webhooks/live`). */
export const EMBEDDED_WEBHOOK_BASE_PATH = '/webhooks';

export const RUN_DEFAULTS = Object.freeze({
  out: 'reports',
  maxRequests: 2_000_000,
  maxDurationMs: 4 * 60 * 60 * 1000,
  requestTimeoutMs: 30_000,
  /** SM-6 / FT-2 bound for a real deployment: "usually within seconds". */
  settleBoundMs: DEFAULT_SETTLE_BOUND_MS,
});

/** --snapshot-every's default: every 5 minutes, for a run planned to last over 15 minutes. */
export const SNAPSHOT_DEFAULT = Object.freeze({ everyMs: 5 * 60_000, whenPlannedOverMs: 15 * 60_000 });

/** --abort-on-violation's ids: each an invariant id or a rule id (exit 3 naming any other). */
export function abortOnViolationOf(v: RunConfig['abortOnViolation']): RunSettings['abortOnViolation'] {
  if (v === undefined || v === false) return null;
  if (v === true || v.length === 0) return 'any';
  const known = new Set<string>([...INVARIANTS.map((i) => i.id), ...RULE_IDS]);
  const unknown = v.filter((id) => !known.has(id));
  if (unknown.length) {
    throw new PaystormError(
      `--abort-on-violation: ${unknown.map((id) => `"${id}"`).join(', ')} ${unknown.length > 1 ? 'are' : 'is'} neither an invariant id nor a rule id. Give invariant ids (docs/detection-matrix.md, summary.json) or rule ids (IDEM-6), comma-separated, or no value for any violation; write --abort-on-violation=IDS when scenario names follow it.`,
      EXIT.usage,
      '--abort-on-violation',
    );
  }
  return new Set(v);
}

/** What the judge needs beside the history: the same for the final verdict and a soak's snapshots. */
export interface JudgeSettings {
  thresholds: readonly string[];
  baseline?: { baseline: Baseline; source: string };
  trendWindowMs?: number;
}

interface RunKeys {
  parsed: ParsedKey[];
  /** Whether the embedded service lets a key call the API directly, by secret (embedded default keys only). */
  directApi: Map<string, boolean>;
  /** --shared-key secrets: keys other clients use too (the rate limit's lower bound only observes them). */
  shared: Set<string>;
}

export interface RunSettings {
  cfg: RunConfig;
  scenarios: Scenario[];
  /** No --target: paystorm starts the embedded reference service. */
  embedded: boolean;
  variant: ServiceVariant | undefined;
  /** The embedded service's presentation (meaningless with --target: the probe detects it). */
  embeddedPresentation: Presentation;
  seed: number;
  durationMs: number | undefined;
  maxDurationMs: number;
  timeoutMs: number;
  timeScale: number;
  upstreamTimeoutMs: number | undefined;
  webhookAckTimeoutMs: number;
  /** WH-9: the declared longest wait for a retry (target time, unscaled); undefined: not declared. */
  webhookRetryWithinMs: number | undefined;
  cards: CardsFile;
  cardOutcomes: CardOutcome[];
  proxies: ProxySpec[];
  extraFaults: FaultStep[];
  keys: RunKeys;
  judging: JudgeSettings;
  /** --abort-on-violation: stop at the first confirmed violation of any invariant (`any`), of these invariant or rule ids, or never (null). */
  abortOnViolation: 'any' | ReadonlySet<string> | null;
  /** --snapshot-every, when given (ms); the default depends on the planned length (SNAPSHOT_DEFAULT). */
  snapshotEveryMs: number | undefined;
  /** --judge-memory (MB), or its default (live/judge-memory.ts). */
  judgeMemoryMb: number;
  runId: string;
  outDir: string;
  runDir: string;
  historyPath: string;
}

/** Built-in scenarios by name, and a user's own scenario files by path (docs/own-scenarios.md). */
export async function selectScenarios(names: readonly string[]): Promise<Scenario[]> {
  if (names.length === 0) return SCENARIOS.filter((s) => s.defaultSuite);
  const out: Scenario[] = [];
  for (const n of names) {
    if (isScenarioPath(n)) {
      out.push(await loadScenarioFile(n, SCENARIOS.map((x) => x.name)));
      continue;
    }
    const s = scenarioByName(n);
    if (!s) throw new PaystormError(`unknown scenario "${n}". Available: ${SCENARIOS.map((x) => x.name).join(', ')} (see paystorm scenarios), or the path of your own scenario file.`, EXIT.usage, 'scenario');
    out.push(s);
  }
  const dup = out.find((s, i) => out.findIndex((o) => o.name === s.name) !== i);
  if (dup) throw new PaystormError(`scenario "${dup.name}" is selected twice. Name each scenario once.`, EXIT.usage, 'scenario');
  return out;
}

/** Parses --key values; refuses a live key without --allow-live. */
export function resolveKeys(args: readonly string[], allowLive: boolean): ParsedKey[] {
  const keys = args.map((a) => {
    try {
      return parseKeyArg(a);
    } catch (e) {
      throw new PaystormError((e as Error).message, EXIT.usage, '--key');
    }
  });
  const live = keys.filter((k) => k.mode === 'live');
  if (live.length && !allowLive) {
    throw new PaystormError(
      `--key: ${live.map((k) => k.label).join(', ')} ${live.length > 1 ? 'are live keys' : 'is a live key'} (real charges). paystorm refuses live keys unless --allow-live; then only read-only and single-payment checks run on them, never load.`,
      EXIT.usage,
      '--key',
    );
  }
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k.secret)) throw new PaystormError(`--key: the key ${k.label} is given twice. Pass each key once.`, EXIT.usage, '--key');
    seen.add(k.secret);
  }
  return uniqueLabels(keys);
}

async function runKeys(cfg: RunConfig, embedded: boolean, variant: ServiceVariant | undefined): Promise<RunKeys> {
  const shared = new Set<string>();
  let parsed: ParsedKey[];
  let directApi = new Map<string, boolean>();
  if (embedded && !(cfg.keys?.length || cfg.sharedKeys?.length)) {
    const { DEFAULT_KEYS } = await import('../../target/index.ts');
    // A variant may give the service other keys (one key-prefix form only).
    const serviceKeys = variant?.options.keys ?? DEFAULT_KEYS;
    parsed = uniqueLabels(serviceKeys.map((k) => parseKeyArg(`${k.merchant}:${k.key}`)));
    directApi = new Map(serviceKeys.map((k) => [k.key, k.direct_api]));
  } else {
    if (!cfg.keys?.length && !cfg.sharedKeys?.length) throw new PaystormError('--key: pass at least one test key for the target (--key [merchant:]svc_test_sk_...).', EXIT.usage, '--key');
    parsed = resolveKeys([...(cfg.keys ?? []), ...(cfg.sharedKeys ?? [])], cfg.allowLive ?? false);
    for (const k of parsed.slice(cfg.keys?.length ?? 0)) shared.add(k.secret);
  }
  if (!parsed.some((k) => k.mode === 'test')) throw new PaystormError('--key: at least one test-mode key is needed: load never runs on live keys.', EXIT.usage, '--key');
  return { parsed, directApi, shared };
}

export async function readRunSettings(cfg: RunConfig, io: RunIo): Promise<RunSettings> {
  const scenarios = await selectScenarios(cfg.scenarios ?? []);
  const embedded = !cfg.target;
  const seed = cfg.seed ?? Math.floor(Math.random() * 2 ** 31);
  const durationMs = cfg.duration !== undefined ? parseDuration(cfg.duration, '--duration') : undefined;
  const maxDurationMs = cfg.maxDuration !== undefined ? parseDuration(cfg.maxDuration, '--max-duration') : RUN_DEFAULTS.maxDurationMs;
  const timeoutMs = cfg.requestTimeout !== undefined ? parseDuration(cfg.requestTimeout, '--request-timeout') : RUN_DEFAULTS.requestTimeoutMs;
  const timeScale = embedded ? (cfg.timeScale ?? EMBEDDED_DEFAULTS.timeScale) : 1;
  if (!embedded) {
    for (const f of EMBEDDED_ONLY) {
      if (cfg[f] !== undefined) throw new PaystormError(`--${f.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} only applies to the embedded target; drop it or drop --target.`, EXIT.usage);
    }
  }
  const variant = cfg.variant !== undefined ? variantByName(cfg.variant) : undefined;
  if (cfg.variant !== undefined && !variant) throw new PaystormError(`--variant: unknown variant "${cfg.variant}". Known: ${VARIANT_NAMES.join(', ')}.`, EXIT.usage, '--variant');
  const conflict = variant && variantConflicts(variant, cfg)[0];
  if (conflict) throw new PaystormError(conflict.message, EXIT.usage, conflict.flag);
  // Baseline and drift (docs/baselines.md): loaded before any load, so a bad --baseline stops here.
  const baseline = cfg.baseline !== undefined ? { baseline: loadBaseline(cfg.baseline), source: cfg.baseline } : undefined;
  const trendWindowMs = cfg.trendWindow !== undefined ? parseDuration(cfg.trendWindow, '--trend-window') : undefined;
  const cards: CardsFile = cfg.cards !== undefined ? loadCardsFile(cfg.cards) : embedded ? DEFAULT_TEST_CARDS : {};
  if (!embedded && cfg.cards === undefined) io.stderr.write('paystorm: no --cards file: card outcomes are not exercised (pass --cards FILE with the sandbox\'s test card numbers).\n');
  const cardOutcomes = CARD_OUTCOMES.filter((o) => cards[o]) as CardOutcome[];
  const proxies = (cfg.proxies ?? []).map((p) => {
    try {
      return parseProxyArg(p);
    } catch (e) {
      throw new PaystormError((e as Error).message, EXIT.usage, '--proxy');
    }
  });
  const extraFaults = cfg.faults ? parseFaultSchedule(cfg.faults) : [];
  // The service's processor time-out: declared, or the embedded service's own (scaled).
  const upstreamTimeoutMs =
    cfg.upstreamTimeout !== undefined ? parseDuration(cfg.upstreamTimeout, '--upstream-timeout') : embedded ? scaledDelays(timeScale).upstreamTimeoutMs : undefined;
  // Declared, or known: an embedded variant with its own first retry delay (real ms) declares
  // twice that, in the service's own time, as a user of such a deployment would.
  const variantRetryBaseMs = embedded ? variant?.options.webhookRetryBaseMs : undefined;
  // The embedded service itself first retries after a second of its time: known, so declared,
  // with the wide bound a remote run was once assumed to have (WH-9 judges a missing retry only
  // against a declared or observed delay).
  const webhookRetryWithinMs =
    cfg.webhookRetryWithin !== undefined
      ? parseDuration(cfg.webhookRetryWithin, '--webhook-retry-within')
      : variantRetryBaseMs !== undefined && variantRetryBaseMs !== null
        ? (2 * variantRetryBaseMs) / timeScale
        : embedded
          ? NO_RETRY_SEEN_WAIT_MS
          : undefined;
  if (webhookRetryWithinMs !== undefined && !(webhookRetryWithinMs > 0)) {
    throw new PaystormError(`--webhook-retry-within: must be longer than 0 (e.g. 5m or 1h), got "${cfg.webhookRetryWithin}".`, EXIT.usage, '--webhook-retry-within');
  }
  const abortOnViolation = abortOnViolationOf(cfg.abortOnViolation);
  const snapshotEveryMs = cfg.snapshotEvery !== undefined ? parseDuration(cfg.snapshotEvery, '--snapshot-every') : undefined;
  if (snapshotEveryMs !== undefined && !(snapshotEveryMs >= 1000)) throw new PaystormError(`--snapshot-every: at least 1s (e.g. 1m or 5m), got "${cfg.snapshotEvery}".`, EXIT.usage, '--snapshot-every');
  const judgeMemoryMb = judgeMemoryMbOf(cfg.judgeMemory);
  const keys = await runKeys(cfg, embedded, variant);

  const runId = newRunId();
  const outDir = resolve(cfg.out ?? RUN_DEFAULTS.out);
  const runDir = join(outDir, runId);
  return {
    cfg,
    scenarios,
    embedded,
    variant,
    embeddedPresentation: variant?.options.presentation ?? cfg.presentation ?? EMBEDDED_DEFAULTS.presentation,
    seed,
    durationMs,
    maxDurationMs,
    timeoutMs,
    timeScale,
    upstreamTimeoutMs,
    webhookAckTimeoutMs: embedded ? EMBEDDED_WEBHOOK_ACK_MS : LIMITS.webhookAckTimeoutMs,
    webhookRetryWithinMs,
    cards,
    cardOutcomes,
    proxies,
    extraFaults,
    keys,
    judging: { thresholds: cfg.thresholds ?? [], ...(baseline ? { baseline } : {}), ...(trendWindowMs !== undefined ? { trendWindowMs } : {}) },
    abortOnViolation,
    snapshotEveryMs,
    judgeMemoryMb,
    runId,
    outDir,
    runDir,
    historyPath: join(runDir, HISTORY_FILE),
  };
}
