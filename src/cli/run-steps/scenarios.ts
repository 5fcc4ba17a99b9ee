/**
 * Step 4 of `paystorm run`: the scenarios. First what they are told and how long they will take
 * (the plan line, before any load), then the history opened with its run record, then the load.
 * The history (and so the run folder) is created only here, once the target answered: a failed
 * start leaves nothing behind.
 */
import { defaultSettleBoundMs, type ParsedKey, type ScenarioEnv } from '../../spec/index.ts';
import { HistoryWriter, MetricsAggregator, type KeyInfo } from '../../history/index.ts';
import { Progress, runScenarios, makeRunRecord } from '../../engine/index.ts';
import { carriesLivemodeTrue, type KeySecret } from '../../client/index.ts';
import type { WebhookReceiver } from '../../webhooks/index.ts';
import type { FaultPlan } from '../chaos-setup.ts';
import { parseDuration } from '../duration.ts';
import { embeddedChallengeTimeoutMs, embeddedWebhookPaths } from '../embedded.ts';
import { SANDBOX_REFUND_FAIL_AMOUNT } from '../../target/options.ts';
import { capsForPlan, planSuite, type PlannedCaps } from '../plan.ts';
import { EMBEDDED_WEBHOOK_BASE_PATH, RUN_DEFAULTS, WEBHOOK_FAIL_SHARE_DEFAULT, type RunSettings } from './settings.ts';
import type { RunIo, RunScope } from './scope.ts';
import type { OpenedChaos } from './chaos.ts';
import type { ProbedTarget } from './probe.ts';
import { judgeMemoryForecast, judgeScratchForecast } from '../live/judge-memory.ts';
import { snapshotEveryMs, type RunJudge } from './judge.ts';

export interface PreparedScenarios {
  keys: KeySecret[];
  /** What each scenario is told about the run. */
  env: ScenarioEnv;
  settleBoundMs: number;
  /** SM-4: the 3DS challenge time-out, when known. */
  challengeTimeoutMs: number | undefined;
  /** How long the suite will take and why (the plan line). */
  plan: { totalMs: number; line: string };
  /** Where the run stops by itself: --max-requests and --max-duration, or the defaults stretched to the plan (capsForPlan). */
  caps: PlannedCaps;
}

function keyInfo(k: ParsedKey, directApi?: boolean, shared?: boolean): KeyInfo {
  return { label: k.label, merchant: k.merchant, mode: k.mode, prefix: k.prefix, last4: k.last4, ...(directApi !== undefined ? { directApi } : {}), ...(shared ? { shared } : {}) };
}

/** The scenarios' keys and environment, and the plan line: how long the run will take and why. */
export function prepareScenarios(s: RunSettings, target: ProbedTarget, receiver: WebhookReceiver | null, faultPlan: FaultPlan, io: RunIo): PreparedScenarios {
  const { cfg, embedded, timeScale, durationMs } = s;
  const keys: KeySecret[] = s.keys.parsed.map((k, index) => ({
    handle: { ...keyInfo(k, s.keys.directApi.get(k.secret), s.keys.shared.has(k.secret)), index },
    secret: k.secret,
  }));
  const env: ScenarioEnv = {
    presentation: target.presentation,
    embedded,
    keys: keys.map((k) => k.handle),
    cardOutcomes: s.cardOutcomes,
    webhooks: receiver ? { wired: true, failShare: cfg.webhookFailShare ?? WEBHOOK_FAIL_SHARE_DEFAULT } : null,
    faultProxies: faultPlan.faultProxies,
  };
  // Before any load: a remote 60 s window makes the rate-limit probe take minutes.
  const plan = planSuite({
    scenarios: s.scenarios,
    env,
    embedded,
    limit: target.rateLimit.limit,
    windowMs: target.rateLimit.windowMs,
    timeScale,
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(cfg.rate !== undefined ? { rate: cfg.rate } : {}),
    ackTimeoutMs: s.webhookAckTimeoutMs,
    ...(s.webhookRetryWithinMs !== undefined ? { retryWithinMs: s.webhookRetryWithinMs } : {}),
    faultRun: { timeScale, embedded, ...(durationMs !== undefined ? { durationMs } : {}) },
  });
  io.stderr.write(`paystorm: plan: ${plan.line}\n`);
  const { caps, warnings } = capsForPlan(plan, { ...(cfg.maxRequests !== undefined ? { maxRequests: cfg.maxRequests } : {}), ...(cfg.maxDuration !== undefined ? { maxDurationMs: s.maxDurationMs } : {}) }, { maxRequests: RUN_DEFAULTS.maxRequests, maxDurationMs: RUN_DEFAULTS.maxDurationMs });
  for (const w of warnings) io.stderr.write(`paystorm: ${w}\n`);
  // A soak longer than its judge can hold: said now, not hours in (HeapWatch warns at 80% on the way).
  const memory = judgeMemoryForecast(plan.requests, s.judgeMemoryMb);
  if (memory) io.stderr.write(`paystorm: ${memory}\n`);
  // The same for the disk its scratch files go to (TMPDIR): a judge that cannot write them judges nothing.
  const scratch = judgeScratchForecast(plan.requests);
  if (scratch) io.stderr.write(`paystorm: ${scratch}\n`);
  const settleBoundMs = cfg.settleBound !== undefined ? parseDuration(cfg.settleBound, '--settle-bound') : defaultSettleBoundMs(embedded, timeScale);
  // Embedded: the service's own challenge expiry, scaled.
  const challengeTimeoutMs =
    cfg.challengeTimeout !== undefined ? parseDuration(cfg.challengeTimeout, '--challenge-timeout') : embedded ? (s.variant?.options.challengeExpiryMs ?? embeddedChallengeTimeoutMs(timeScale)) : undefined;
  return { keys, env, settleBoundMs, challengeTimeoutMs, plan: { totalMs: plan.totalMs, line: plan.line }, caps };
}

/** What the run record and the load are made from: the earlier steps' outputs. */
export interface SuiteInputs {
  target: ProbedTarget;
  prepared: PreparedScenarios;
  receiver: WebhookReceiver | null;
  chaos: OpenedChaos;
}

/** Creates the run folder and its history file. */
export function openHistory(s: RunSettings): HistoryWriter {
  // Offload: records are built, serialized and written on a worker thread, off the load loop's thread.
  return new HistoryWriter({ path: s.historyPath, offload: true });
}

/** The history's first record, then the records held back until it (webhooks, faults). */
export function writeRunRecord(history: HistoryWriter, s: RunSettings, scope: RunScope, h: SuiteInputs): void {
  const { cfg, embedded, variant } = s;
  const { receiver, prepared } = h;
  history.write({
    ...makeRunRecord({
      runId: s.runId,
      clock: scope.clock,
      target: h.target,
      keys: prepared.env.keys,
      scenarios: s.scenarios.map((sc) => ({ name: sc.name, rules: sc.rulesFor ? sc.rulesFor(prepared.env) : sc.rules, ...(sc.thresholds?.length ? { thresholds: [...sc.thresholds] } : {}) })),
      seed: s.seed,
      timeScale: s.timeScale,
      settleBoundMs: prepared.settleBoundMs,
      webhooks: receiver
        ? {
            receiverUrl: receiver.url,
            wired: true,
            failShare: prepared.env.webhooks!.failShare,
            ackTimeoutMs: s.webhookAckTimeoutMs,
            ...(s.webhookRetryWithinMs !== undefined ? { retryWithinMs: s.webhookRetryWithinMs } : {}),
            // WH-10: the embedded service has one endpoint per mode on the receiver.
            ...(embedded ? { endpoints: embeddedWebhookPaths(`${receiver.url}${EMBEDDED_WEBHOOK_BASE_PATH}`) } : {}),
          }
        : null,
      cardOutcomes: s.cardOutcomes,
      facts: { tool: 'paystorm', node: process.version, bugs: cfg.bugs ?? [], ...(variant ? { variant: variant.name } : {}), toxiproxy: h.chaos.toxiproxyUrl ?? null },
    }),
    ...(prepared.challengeTimeoutMs !== undefined ? { challengeTimeoutMs: prepared.challengeTimeoutMs } : {}),
    ...(s.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: s.upstreamTimeoutMs } : {}),
    ...(h.chaos.faultPlan.skipped.length ? { faultsSkipped: h.chaos.faultPlan.skipped } : {}),
  });
  scope.gate.open(history);
}

/** Runs the load into the open history; scenario errors are reported, the history stays open for the caller to close. */
export async function runScenarioSuite(history: HistoryWriter, s: RunSettings, scope: RunScope, h: SuiteInputs, judge: RunJudge): Promise<void> {
  const { cfg, durationMs } = s;
  const { io, clock } = scope;
  const { receiver, prepared, chaos } = h;
  // Safety: a test key that is answered with live data means real money may be moving: stop at once.
  const safety = new AbortController();
  const testLabels = new Set(prepared.env.keys.filter((k) => k.mode === 'test').map((k) => k.label));
  const unsubscribeSafety = history.subscribe((r) => {
    if (r.kind !== 'exchange' || !testLabels.has(r.key) || safety.signal.aborted) return;
    if (carriesLivemodeTrue(r)) {
      io.stderr.write(`paystorm: STOP: a response to test key ${r.key} carried livemode: true (${r.op}${r.sent.path ? ' ' + r.sent.path : ''}, history seq ${r.seq}). The run stops: a test key must never reach live data.\n`);
      safety.abort('livemode-on-test-key');
    }
  });
  scope.onCleanup(async () => unsubscribeSafety());
  // The plan's length (the dashboard's too): --duration sets only the load scenarios' part of it, and
  // a soak without it runs its own 30 minutes, which the progress line then shows.
  const progress = new Progress({ clock, stream: io.stderr, totalMs: prepared.plan.totalMs });
  scope.live.plan(prepared.plan.totalMs, prepared.plan.line);
  const log = (m: string) => progress.log(m);
  const every = snapshotEveryMs(s, prepared.plan.totalMs);
  if (every !== null) judge.every(every, log);
  const outcome = await runScenarios({
    scenarios: s.scenarios,
    target: h.target,
    keys: prepared.keys,
    cards: s.cards,
    clock,
    writer: history,
    caps: prepared.caps,
    seed: s.seed,
    timeScale: s.timeScale,
    signal: io.signal ? AbortSignal.any([io.signal, safety.signal]) : safety.signal,
    stop: judge.stop.signal,
    progress,
    live: scope.live,
    metrics: new MetricsAggregator(),
    webhooks: receiver
      ? {
          url: receiver.url,
          deliveries: () => receiver.count(),
          awaitingRetry: () => receiver.awaitingRetry(),
          ackTimeoutMs: s.webhookAckTimeoutMs,
          ...(s.webhookRetryWithinMs !== undefined ? { retryWithinMs: s.webhookRetryWithinMs } : {}),
        }
      : null,
    // A scenario's own mid-run report (soak): the same snapshot as --snapshot-every's.
    snapshot: (label: string) => judge.snapshot(label, log),
    timeoutMs: s.timeoutMs,
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(cfg.rate !== undefined ? { rate: cfg.rate } : {}),
    ...(chaos.chaos ? { chaos: chaos.chaos, extraFaults: s.extraFaults } : {}),
    faultProxies: chaos.faultPlan.faultProxies,
    ...(s.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: s.upstreamTimeoutMs } : {}),
    // The reference service fails refunds of this amount (its own sandbox, not the spec's).
    ...(s.embedded ? { refundFailAmount: SANDBOX_REFUND_FAIL_AMOUNT } : {}),
    settleBoundMs: prepared.settleBoundMs,
    log: (m) => progress.log(m),
    // Deliveries after the traffic are not the run's: the receiver closes before the end record.
    ...(receiver ? { beforeEnd: () => receiver.close() } : {}),
  });
  for (const e of outcome.scenarioErrors) io.stderr.write(`paystorm: scenario ${e.scenario} failed: ${e.message}\n`);
}
