/**
 * `paystorm run`: the whole pipeline, scenario -> engine -> client -> history ->
 * oracle -> report. Starts the embedded stack when no --target is given, checks
 * the target speaks this API, writes the history, judges it, writes the reports,
 * and returns the exit code. Whatever happens after the history is opened, the
 * history is closed and judged, so nothing already measured is lost.
 */
import { join, resolve } from 'node:path';
import { DEFAULT_TEST_CARDS, EXIT, PaystormError, CARD_OUTCOMES, LIMITS, parseKeyArg, parseProxyArg, parseFaultSchedule, type CardOutcome, type CardsFile, type ParsedKey, type Presentation, type Scenario, type ScenarioEnv, type Summary, type TargetInfo } from '../spec/index.ts';
import { type FaultRecord, type HistoryRecord, type KeyInfo, type WebhookRecord } from '../history/index.ts';
import { RunClock, Progress, runScenarios, makeRunRecord, newRunId, faultRunInfo } from '../engine/index.ts';
import { HistoryWriter, MetricsAggregator } from '../history/index.ts';
import { probeRateLimit, detectTargetPresentation, carriesLivemodeTrue, type KeySecret } from '../client/index.ts';
import { openChaosSession, groupSessions, ToxiproxyDriver, ToxiproxyApiError, type ChaosGroup, type ChaosSession } from '../chaos/index.ts';
import { startToxiproxyServer } from '../chaos/proxy/index.ts';
import { scaledDelays } from '../target/options.ts';
import { planFaults, scenarioSchedule, viaProxyUrl } from './chaos-setup.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../webhooks/index.ts';
import { writeReports, renderConsole } from '../report/index.ts';
import { SCENARIOS, scenarioByName } from '../../scenarios/index.ts';
import { loadCardsFile, type RunConfig } from './config.ts';
import { parseDuration } from './duration.ts';
import { embeddedChallengeTimeoutMs, embeddedWebhookPaths, startEmbeddedStack, type EmbeddedStack } from './embedded.ts';

/** The embedded service's webhook endpoints live under this receiver path (`/webhooks/test`, `/webhooks/live`). */
const EMBEDDED_WEBHOOK_BASE_PATH = '/webhooks';
import { judgeHistory } from './judge-run.ts';
import { loadBaseline, saveBaseline } from '../oracle/baseline.ts';
import { isScenarioPath, loadScenarioFile } from './scenario-file.ts';
import { planSuite } from './plan.ts';
import { variantByName, VARIANT_NAMES } from '../target/variants.ts';

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

export const RUN_DEFAULTS = Object.freeze({
  out: 'reports',
  maxRequests: 2_000_000,
  maxDurationMs: 4 * 60 * 60 * 1000,
  requestTimeoutMs: 30_000,
  /** SM-6 / FT-2 bound for a real deployment: "usually within seconds". */
  settleBoundMs: 30_000,
});

export interface RunIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Aborted on SIGINT/SIGTERM by the command wrapper. */
  signal?: AbortSignal;
}

export interface RunResult {
  exitCode: number;
  summary: Summary | null;
  runDir: string | null;
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
  return keys;
}

function keyInfo(k: ParsedKey, directApi?: boolean, shared?: boolean): KeyInfo {
  return { label: k.label, merchant: k.merchant, mode: k.mode, prefix: k.prefix, last4: k.last4, ...(directApi !== undefined ? { directApi } : {}), ...(shared ? { shared } : {}) };
}

/**
 * A probe that opened a fresh window (remaining = limit - 1) shows the window's length in
 * X-RateLimit-Reset, to the second. When it disagrees with the window the run assumes, say so:
 * the oracle judges RL-2 with the assumed one.
 */
function warnIfWindowDiffers(probe: { limit: number | null; remaining: number | null; reset: number | null; date?: number | null; wall: number }, windowMs: number, io: RunIo): void {
  if (probe.limit === null || probe.remaining !== probe.limit - 1 || probe.reset === null) return;
  // Against the answer's own Date when it has one: both are the server's clock, so a host whose clock is off does not look like another window.
  const seen = probe.date !== null && probe.date !== undefined ? (probe.reset - probe.date) * 1000 : probe.reset * 1000 - probe.wall;
  if (Math.abs(seen - windowMs) > 1500) {
    io.stderr.write(`paystorm: the target's rate window looks like about ${Math.round(seen / 1000)} s (X-RateLimit-Reset), not the ${windowMs / 1000} s the spec fixes; rate-window rules are judged with ${windowMs / 1000} s. Pass --window-ms if the deployment is configured otherwise.\n`);
  }
}

/** Holds records that arrive before the run record (webhooks after a presentation probe), then passes them on. */
class RecordGate {
  private held: HistoryRecord[] | null = [];
  private writer: HistoryWriter | null = null;
  write = (r: WebhookRecord | FaultRecord): void => {
    if (this.held || !this.writer) this.held?.push(r);
    else this.writer.write(r);
  };
  open(writer: HistoryWriter): void {
    this.writer = writer;
    const held = this.held ?? [];
    this.held = null;
    for (const r of held) writer.write(r);
  }
}

export async function executeRun(cfg: RunConfig, io: RunIo): Promise<RunResult> {
  const scenarios = await selectScenarios(cfg.scenarios ?? []);
  const embedded = !cfg.target;
  const seed = cfg.seed ?? Math.floor(Math.random() * 2 ** 31);
  const durationMs = cfg.duration !== undefined ? parseDuration(cfg.duration, '--duration') : undefined;
  const maxDurationMs = cfg.maxDuration !== undefined ? parseDuration(cfg.maxDuration, '--max-duration') : RUN_DEFAULTS.maxDurationMs;
  const timeoutMs = cfg.requestTimeout !== undefined ? parseDuration(cfg.requestTimeout, '--request-timeout') : RUN_DEFAULTS.requestTimeoutMs;
  const timeScale = embedded ? (cfg.timeScale ?? EMBEDDED_DEFAULTS.timeScale) : 1;
  if (!embedded) {
    for (const f of ['presentation', 'timeScale', 'rateLimit', 'bugs', 'variant'] as const) {
      if (cfg[f] !== undefined) throw new PaystormError(`--${f.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} only applies to the embedded target; drop it or drop --target.`, EXIT.usage);
    }
  }
  const variant = cfg.variant !== undefined ? variantByName(cfg.variant) : undefined;
  if (cfg.variant !== undefined && !variant) throw new PaystormError(`--variant: unknown variant "${cfg.variant}". Known: ${VARIANT_NAMES.join(', ')}.`, EXIT.usage, '--variant');
  if (variant?.options.presentation && cfg.presentation && cfg.presentation !== variant.options.presentation) {
    throw new PaystormError(`--variant ${variant.name} serves presentation ${variant.options.presentation}; drop --presentation ${cfg.presentation}.`, EXIT.usage, '--presentation');
  }
  // Baseline and drift (docs/baselines.md): loaded before any load, so a bad --baseline stops here.
  const baseline = cfg.baseline !== undefined ? { baseline: loadBaseline(cfg.baseline), source: cfg.baseline } : undefined;
  const trendWindowMs = cfg.trendWindow !== undefined ? parseDuration(cfg.trendWindow, '--trend-window') : undefined;
  const judgeExtras = { ...(baseline ? { baseline } : {}), ...(trendWindowMs !== undefined ? { trendWindowMs } : {}) };
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

  let parsedKeys: ParsedKey[];
  let directApi = new Map<string, boolean>();
  // --shared-key: keys used like --key, marked shared with other clients (the rate limit's lower bound only observes them).
  const sharedSecrets = new Set<string>();
  if (embedded && !(cfg.keys?.length || cfg.sharedKeys?.length)) {
    const { DEFAULT_KEYS } = await import('../target/index.ts');
    // A variant may give the service other keys (one key-prefix form only).
    const serviceKeys = variant?.options.keys ?? DEFAULT_KEYS;
    parsedKeys = serviceKeys.map((k) => parseKeyArg(`${k.merchant}:${k.key}`));
    directApi = new Map(serviceKeys.map((k) => [k.key, k.direct_api]));
  } else {
    if (!cfg.keys?.length && !cfg.sharedKeys?.length) throw new PaystormError('--key: pass at least one test key for the target (--key [merchant:]svc_test_sk_...).', EXIT.usage, '--key');
    parsedKeys = resolveKeys([...(cfg.keys ?? []), ...(cfg.sharedKeys ?? [])], cfg.allowLive ?? false);
    for (const k of parsedKeys.slice(cfg.keys?.length ?? 0)) sharedSecrets.add(k.secret);
  }
  if (!parsedKeys.some((k) => k.mode === 'test')) throw new PaystormError('--key: at least one test-mode key is needed: load never runs on live keys.', EXIT.usage, '--key');

  const runId = newRunId();
  const outDir = resolve(cfg.out ?? RUN_DEFAULTS.out);
  const runDir = join(outDir, runId);
  const clock = new RunClock();
  // The history (and so the run folder) is created only once the run starts, after the target
  // answered: a failed start leaves nothing behind.
  let writer: HistoryWriter | null = null;
  const gate = new RecordGate();
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch((e) => io.stderr.write(`paystorm: cleanup: ${(e as Error).message}\n`));
  };

  let stack: EmbeddedStack | null = null;
  let receiver: WebhookReceiver | null = null;
  let chaos: ChaosGroup | null = null;
  let targetUrl = cfg.target ?? '';
  const safety = new AbortController();
  const webhookSecret = cfg.webhookSecret;
  try {
    // Webhook receiver: always on the embedded target; on a real one when --webhook-port is given.
    const wantReceiver = embedded || cfg.webhookPort !== undefined;
    if (wantReceiver) {
      const { EMBEDDED_WEBHOOK_SECRET } = await import('./embedded.ts');
      const secret = webhookSecret ?? (embedded ? EMBEDDED_WEBHOOK_SECRET : undefined);
      if (!secret) throw new PaystormError('--webhook-secret: pass the endpoint\'s signing secret (whsec_...) with --webhook-port.', EXIT.usage, '--webhook-secret');
      const receiverOpts = {
        host: embedded ? '127.0.0.1' : '0.0.0.0',
        port: cfg.webhookPort ?? 0,
        secret,
        failShare: cfg.webhookFailShare ?? WEBHOOK_FAIL_SHARE_DEFAULT,
        stallShare: cfg.webhookStallShare ?? (embedded ? 0.05 : 0),
        // A stall well past the service's acknowledge time: its time-out (undici's coarse timers,
        // an event loop busy with the run) may fire a few hundred ms late, and a stall it still
        // answered as delivered would look like a failure never retried (WH-9 false fail).
        ...(embedded ? { stallMs: EMBEDDED_WEBHOOK_ACK_MS + 1000, ackTimeoutMs: EMBEDDED_WEBHOOK_ACK_MS } : {}),
        seed,
        now: () => clock.now(),
        wall: () => clock.wall(),
        sink: gate.write,
        secretsToScan: parsedKeys.map((k) => k.secret),
        cardNumbersToScan: Object.values(cards).filter((x): x is string => !!x),
      };
      try {
        receiver = await startWebhookReceiver(receiverOpts);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === 'EADDRINUSE' || code === 'EACCES') {
          const why = code === 'EADDRINUSE' ? 'is in use' : 'may not be opened by this user';
          throw new PaystormError(`--webhook-port: port ${receiverOpts.port} ${why} on ${receiverOpts.host}; pass a free port (and point the target's webhook URL at it).`, EXIT.usage, '--webhook-port');
        }
        throw e;
      }
      cleanups.push(() => receiver!.close());
    }

    if (embedded) {
      stack = await startEmbeddedStack({
        presentation: variant?.options.presentation ?? cfg.presentation ?? EMBEDDED_DEFAULTS.presentation,
        rateLimit: cfg.rateLimit ?? EMBEDDED_DEFAULTS.rateLimit,
        windowMs: cfg.windowMs ?? EMBEDDED_DEFAULTS.windowMs,
        timeScale,
        cards,
        bugs: cfg.bugs ?? [],
        ...(variant ? { variant: variant.options } : {}),
        webhookUrl: receiver ? `${receiver.url}${EMBEDDED_WEBHOOK_BASE_PATH}` : null,
        webhookTimeoutMs: EMBEDDED_WEBHOOK_ACK_MS,
        ...(cfg.toxiproxy ? { toxiproxyUrl: cfg.toxiproxy } : {}),
      });
      cleanups.push(() => stack!.close());
    }

    let toxiproxyUrl = cfg.toxiproxy ?? stack?.toxiproxyUrl;
    // --proxy on a real target without --toxiproxy: the proxies live in paystorm's embedded Toxiproxy-compatible proxy.
    if (!toxiproxyUrl && proxies.length > 0) {
      const own = await startToxiproxyServer({ host: '127.0.0.1', port: 0 });
      cleanups.push(() => own.close());
      toxiproxyUrl = own.url;
      io.stderr.write(`paystorm: no --toxiproxy: started the embedded Toxiproxy-compatible proxy (API ${own.url}) for --proxy\n`);
    }
    const runInfo = faultRunInfo({ ...(durationMs !== undefined ? { durationMs } : {}), timeScale, target: { embedded }, ...(upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs } : {}) });
    const scheduled = [...scenarios.flatMap((s) => scenarioSchedule(s, runInfo)), ...extraFaults];
    const sessions: ChaosSession[] = [];
    const openSession = async (specs: typeof proxies) => {
      let s: ChaosSession;
      try {
        s = await openChaosSession({ toxiproxyUrl: toxiproxyUrl!, proxies: specs, now: () => clock.now(), wall: () => clock.wall(), sink: gate.write, exitHooks: false });
      } catch (e) {
        // Toxiproxy down or refusing: its sentence says what to do; no stack trace (exit 3).
        if (e instanceof ToxiproxyApiError) throw new PaystormError(`--toxiproxy: ${e.message}`, EXIT.usage, '--toxiproxy');
        throw e;
      }
      sessions.push(s);
      return s;
    };
    if (toxiproxyUrl && (embedded || proxies.length > 0 || scheduled.length > 0)) {
      cleanups.push(async () => {
        for (const s of sessions.splice(0).reverse()) await s.cleanup();
      });
      // The embedded upstream proxy must exist before the service starts: its address is the service's upstream URL.
      const first = await openSession(embedded ? [stack!.upstreamProxy, ...proxies.filter((p) => p.name !== 'client')] : proxies);
      if (stack) targetUrl = await stack.startService(first.proxies.get('upstream')!.listen);
      // A client-link fault needs paystorm's own traffic to go through a proxy in front of the service.
      if (embedded && scheduled.some((f) => f.proxy === 'client')) {
        const client = await openSession([{ name: 'client', listen: '127.0.0.1:0', upstream: new URL(targetUrl).host }]);
        targetUrl = `http://${client.proxies.get('client')!.listen}`;
      }
      if (!embedded) {
        for (const p of first.proxies.values()) io.stderr.write(`paystorm: proxy "${p.name}" listens on ${p.listen} and forwards to ${p.upstream}\n`);
        // A client proxy this run created sits in front of the service: paystorm's own requests go through it.
        const client = first.proxies.get('client');
        if (client) {
          if (client.upstream !== new URL(targetUrl).host) io.stderr.write(`paystorm: warning: proxy "client" forwards to ${client.upstream}, not to the target ${new URL(targetUrl).host}\n`);
          targetUrl = viaProxyUrl(targetUrl, client.listen, toxiproxyUrl);
          io.stderr.write(`paystorm: requests to the target go through proxy "client" (${targetUrl})\n`);
        }
      }
      chaos = groupSessions(sessions);
    } else if (stack) {
      targetUrl = await stack.startService(new URL(stack.processorUrl).host);
    }
    // Check every schedule against the proxies that exist before load: run what can run, say what cannot.
    const known = toxiproxyUrl && chaos ? [...new Set([...sessions.flatMap((s) => [...s.proxies.keys()]), ...(await new ToxiproxyDriver(toxiproxyUrl).listProxies()).map((p) => p.name)])] : null;
    const faultPlan = planFaults({
      scenarios,
      named: (cfg.scenarios ?? []).length > 0,
      extraFaults,
      proxies: known,
      toxiproxyUrl: toxiproxyUrl ?? null,
      targetHost: new URL(cfg.target ?? targetUrl).host,
      run: runInfo,
    });
    for (const n of faultPlan.notes) io.stderr.write(`paystorm: ${n}\n`);

    // Is the target there, and does it speak this API?
    const firstTest = parsedKeys.find((k) => k.mode === 'test')!;
    let probe;
    try {
      const wall = Date.now();
      probe = { ...(await probeRateLimit(targetUrl, firstTest.secret, 10_000)), wall };
    } catch (e) {
      throw new PaystormError(`target ${targetUrl} is unreachable (${(e as Error).message}). Check --target and that the service is up.`, EXIT.target, '--target');
    }
    if (probe.status === 401) throw new PaystormError(`--key ${firstTest.label}: the target refused it (401 invalid_api_key). Pass a valid test key.`, EXIT.usage, '--key');
    if (probe.limit === null || probe.status >= 500 || probe.status === 404) {
      throw new PaystormError(`target ${targetUrl} does not look like the Card Payment Service API (GET /v1/payments answered ${probe.status} without X-RateLimit-Limit). Check --target.`, EXIT.target, '--target');
    }
    const presentation: Presentation =
      embedded
        ? (variant?.options.presentation ?? cfg.presentation ?? EMBEDDED_DEFAULTS.presentation)
        : ((await detectTargetPresentation(targetUrl, firstTest.secret, cards.succeeds ? { probeCard: { number: cards.succeeds, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123', holder_name: 'Pay Storm' } } : {})) ?? 'B');
    // The spec fixes the window at 60 s; --window-ms declares another (a scaled staging or `paystorm serve --window-ms`).
    const windowMs = cfg.windowMs ?? (embedded ? EMBEDDED_DEFAULTS.windowMs : LIMITS.rateWindowMs);
    if (!embedded && cfg.windowMs === undefined) warnIfWindowDiffers(probe, windowMs, io);
    const target: TargetInfo = { url: targetUrl, embedded, presentation, rateLimit: { limit: probe.limit, windowMs } };

    const keys: KeySecret[] = parsedKeys.map((k, index) => ({
      handle: { ...keyInfo(k, directApi.get(k.secret), sharedSecrets.has(k.secret)), index },
      secret: k.secret,
    }));
    const keyInfos = keys.map((k) => k.handle);
    const env: ScenarioEnv = {
      presentation,
      embedded,
      keys: keyInfos,
      cardOutcomes,
      webhooks: receiver ? { wired: true, failShare: cfg.webhookFailShare ?? WEBHOOK_FAIL_SHARE_DEFAULT } : null,
      faultProxies: faultPlan.faultProxies,
    };
    // How long the run will take and why, before any load (a remote 60 s window makes the rate-limit probe take minutes).
    const plan = planSuite({
      scenarios,
      env,
      embedded,
      limit: probe.limit,
      windowMs,
      timeScale,
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(cfg.rate !== undefined ? { rate: cfg.rate } : {}),
      ackTimeoutMs: embedded ? EMBEDDED_WEBHOOK_ACK_MS : LIMITS.webhookAckTimeoutMs,
      faultRun: { timeScale, embedded, ...(durationMs !== undefined ? { durationMs } : {}) },
    });
    io.stderr.write(`paystorm: plan: ${plan.line}\n`);
    const settleBoundMs = cfg.settleBound !== undefined ? parseDuration(cfg.settleBound, '--settle-bound') : embedded ? Math.max(3_000, 60_000 * timeScale) : RUN_DEFAULTS.settleBoundMs;
    // SM-4: the 3DS challenge time-out, when known (embedded: the service's own, scaled).
    const challengeTimeoutMs =
      cfg.challengeTimeout !== undefined ? parseDuration(cfg.challengeTimeout, '--challenge-timeout') : embedded ? (variant?.options.challengeExpiryMs ?? embeddedChallengeTimeoutMs(timeScale)) : undefined;
    // Offload: records are built, serialized and written on a worker thread, off the load loop's thread.
    const history = (writer = new HistoryWriter({ path: join(runDir, 'history.ndjson'), offload: true }));
    history.write({
      ...makeRunRecord({
        runId,
        clock,
        target,
        keys: keyInfos,
        scenarios: scenarios.map((s) => ({ name: s.name, rules: s.rulesFor ? s.rulesFor(env) : s.rules, ...(s.thresholds?.length ? { thresholds: [...s.thresholds] } : {}) })),
        seed,
        timeScale,
        settleBoundMs,
        webhooks: receiver
          ? {
              receiverUrl: receiver.url,
              wired: true,
              failShare: env.webhooks!.failShare,
              ackTimeoutMs: embedded ? EMBEDDED_WEBHOOK_ACK_MS : LIMITS.webhookAckTimeoutMs,
              // WH-10: the embedded service has one endpoint per mode on the receiver.
              ...(embedded ? { endpoints: embeddedWebhookPaths(`${receiver.url}${EMBEDDED_WEBHOOK_BASE_PATH}`) } : {}),
            }
          : null,
        cardOutcomes,
        facts: { tool: 'paystorm', node: process.version, bugs: cfg.bugs ?? [], ...(variant ? { variant: variant.name } : {}), toxiproxy: toxiproxyUrl ?? null },
      }),
      ...(challengeTimeoutMs !== undefined ? { challengeTimeoutMs } : {}),
      ...(upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs } : {}),
      ...(faultPlan.skipped.length ? { faultsSkipped: faultPlan.skipped } : {}),
    });
    gate.open(history);

    // Safety: a test key that is answered with live data means real money may be moving: stop at once.
    const testLabels = new Set(keyInfos.filter((k) => k.mode === 'test').map((k) => k.label));
    const unsubscribeSafety = history.subscribe((r) => {
      if (r.kind !== 'exchange' || !testLabels.has(r.key) || safety.signal.aborted) return;
      if (carriesLivemodeTrue(r)) {
        io.stderr.write(`paystorm: STOP: a response to test key ${r.key} carried livemode: true (${r.op}${r.sent.path ? ' ' + r.sent.path : ''}, history seq ${r.seq}). The run stops: a test key must never reach live data.\n`);
        safety.abort('livemode-on-test-key');
      }
    });
    cleanups.push(async () => unsubscribeSafety());
    const metrics = new MetricsAggregator();
    // The planned length is known only when --duration sets it; otherwise show elapsed time alone.
    const progress = new Progress({ clock, stream: io.stderr, ...(durationMs !== undefined ? { totalMs: durationMs } : {}) });
    const outcome = await runScenarios({
      scenarios,
      target,
      keys,
      cards,
      clock,
      writer: history,
      caps: { maxRequests: cfg.maxRequests ?? RUN_DEFAULTS.maxRequests, maxDurationMs },
      seed,
      timeScale,
      signal: io.signal ? AbortSignal.any([io.signal, safety.signal]) : safety.signal,
      progress,
      metrics,
      webhooks: receiver ? { url: receiver.url, deliveries: () => receiver!.count(), ackTimeoutMs: embedded ? EMBEDDED_WEBHOOK_ACK_MS : LIMITS.webhookAckTimeoutMs } : null,
      // A mid-run report (soak): the history so far, judged and rendered into <run>/snapshot/.
      snapshot: async (label: string) => {
        const summary = await judgeHistory(join(runDir, 'history.ndjson'), { interrupted: false, thresholds: cfg.thresholds ?? [], scenarioThresholds: (name) => scenarioByName(name)?.thresholds ?? [], onWarning: () => {}, ...judgeExtras });
        const dir = join(runDir, 'snapshot');
        await writeReports(dir, summary, { latestDir: dir });
        progress.log(`snapshot (${label}): ${summary.invariants.filter((i) => i.status === 'fail').length} failing invariant(s), report in ${dir}`);
      },
      timeoutMs,
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(cfg.rate !== undefined ? { rate: cfg.rate } : {}),
      ...(chaos ? { chaos, extraFaults } : {}),
      faultProxies: faultPlan.faultProxies,
      ...(upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs } : {}),
      settleBoundMs,
      log: (m) => progress.log(m),
      // Deliveries after the traffic are not the run's: the receiver closes before the end record.
      ...(receiver ? { beforeEnd: () => receiver!.close() } : {}),
    });
    for (const e of outcome.scenarioErrors) io.stderr.write(`paystorm: scenario ${e.scenario} failed: ${e.message}\n`);
  } catch (e) {
    await cleanup();
    if (!writer || writer.written === 0) {
      await writer?.close().catch(() => {});
      throw e;
    }
    // The history is open: keep what was measured, judge it, then report the error.
    io.stderr.write(`paystorm: ${(e as Error).message}\n`);
  }
  await cleanup();
  await writer!.close();
  const interrupted = io.signal?.aborted ?? false;
  const summary = await judgeHistory(join(runDir, 'history.ndjson'), {
    thresholds: cfg.thresholds ?? [],
    scenarioThresholds: (name) => scenarioByName(name)?.thresholds ?? [],
    interrupted,
    ...judgeExtras,
  });
  await writeReports(runDir, summary);
  if (cfg.saveBaseline !== undefined) {
    const saved = saveBaseline(cfg.saveBaseline, summary);
    io.stderr.write(`paystorm: baseline saved: ${saved.path} (${saved.bytes} bytes)\n`);
  }
  io.stdout.write(renderConsole(summary, { color: !!io.stdout.isTTY }) + '\n');
  io.stdout.write(`reports: ${runDir} (copied to ${join(outDir, 'latest')})\n`);
  return { exitCode: summary.exitCode, summary, runDir };
}
