/**
 * Runs scenarios against the embedded reference service with an in-memory history:
 * small limit and window, a small time scale, paystorm's webhook receiver wired in.
 */
import { DEFAULT_TEST_CARDS, parseKeyArg, type Presentation, type Scenario, type TargetInfo, CARD_OUTCOMES } from '../../src/spec/index.ts';
import { type ExchangeRecord, type HistoryRecord, type WebhookRecord } from '../../src/history/index.ts';
import { RunClock, runScenarios, makeRunRecord, type RunOutcome } from '../../src/engine/index.ts';
import { HistoryWriter } from '../../src/history/index.ts';
import { makeKeySecrets } from '../../src/client/index.ts';
import { startReferenceService, startProcessor, DEFAULT_KEYS, DEFAULT_WEBHOOK_SECRET, type KeyConfig } from '../../src/target/index.ts';
import { SANDBOX_REFUND_FAIL_AMOUNT, scaledDelays } from '../../src/target/options.ts';
import { startToxiproxyServer } from '../../src/chaos/proxy/index.ts';
import { openChaosSession, groupSessions, type ChaosSession } from '../../src/chaos/index.ts';
import { startWebhookReceiver } from '../../src/webhooks/index.ts';
import { EMBEDDED_WEBHOOK_RETRY_BASE_MIN_MS } from '../../src/cli/embedded.ts';

export const LIMIT = 60;
export const WINDOW_MS = 2_000;
export const TIME_SCALE = 0.02;
/** The target's webhook acknowledge time in these tests (the spec's 10 s would make the test slow). */
export const ACK_MS = 400;

export interface ScenarioRun {
  records: HistoryRecord[];
  exchanges: ExchangeRecord[];
  webhooks: WebhookRecord[];
  outcome: RunOutcome;
  logs: string[];
  presentation: Presentation;
}

export async function runAgainstReference(
  scenarios: Scenario[],
  opts: {
    presentation: Presentation;
    webhooks?: boolean;
    failShare?: number;
    stallShare?: number;
    seed?: number;
    durationMs?: number;
    /** Which of the reference service's keys the run gets (default all). */
    keys?: (k: KeyConfig) => boolean;
    /**
     * Fault proxies through the embedded Toxiproxy-compatible proxy, as `paystorm run` sets them
     * up: `upstream` between the service and its processor, `client` in front of the service.
     * Without them, fault steps are skipped (and a chaos scenario's rules are not declared).
     */
    faults?: boolean;
    /** Seeded bugs the reference service runs with (src/target/bugs.ts). */
    bugs?: string[];
  },
): Promise<ScenarioRun> {
  const clock = new RunClock();
  const records: HistoryRecord[] = [];
  const writer = HistoryWriter.memory(records);
  const seed = opts.seed ?? 7;
  const failShare = opts.failShare ?? 0.3;
  const receiver = opts.webhooks
    ? await startWebhookReceiver({
        port: 0,
        secret: DEFAULT_WEBHOOK_SECRET,
        failShare,
        stallShare: opts.stallShare ?? 0.1,
        ackTimeoutMs: ACK_MS,
        seed,
        now: () => clock.now(),
        sink: (r) => writer.write(r),
      })
    : null;
  // Fault proxies: the processor behind `upstream`, the service behind `client`.
  const closers: (() => Promise<void>)[] = [];
  const sessions: ChaosSession[] = [];
  let upstreamUrl: string | undefined;
  if (opts.faults) {
    const processor = await startProcessor({ host: '127.0.0.1', port: 0, timeScale: TIME_SCALE, cards: DEFAULT_TEST_CARDS, bugs: [] });
    const tp = await startToxiproxyServer({ host: '127.0.0.1', port: 0 });
    closers.push(() => processor.close(), () => tp.close());
    const open = async (name: string, upstream: string) => {
      const session = await openChaosSession({ toxiproxyUrl: tp.url, proxies: [{ name, listen: '127.0.0.1:0', upstream }], now: () => clock.now(), sink: (r) => writer.write(r), exitHooks: false });
      sessions.push(session);
      closers.unshift(() => session.cleanup());
      return session.proxies.get(name)!.listen;
    };
    upstreamUrl = `http://${await open('upstream', new URL(processor.url).host)}`;
  }
  const svc = await startReferenceService({
    ...(upstreamUrl ? { upstreamUrl } : {}),
    port: 0,
    presentation: opts.presentation,
    rateLimit: LIMIT,
    windowMs: WINDOW_MS,
    timeScale: TIME_SCALE,
    webhookUrls: receiver ? [{ url: receiver.url, mode: 'test' }] : [],
    webhookTimeoutMs: ACK_MS,
    // As `paystorm run` does: retry gaps well above timer jitter, so WH-9's growth check is fair.
    webhookRetryBaseMs: Math.max(EMBEDDED_WEBHOOK_RETRY_BASE_MIN_MS, scaledDelays(TIME_SCALE).webhookRetryBaseMs),
    ...(opts.bugs ? { bugs: opts.bugs } : {}),
  });
  const logs: string[] = [];
  try {
    const parsed = DEFAULT_KEYS.filter(opts.keys ?? (() => true)).map((k) => parseKeyArg(`${k.merchant}:${k.key}`));
    const keys = makeKeySecrets(parsed, (k) => DEFAULT_KEYS.find((d) => d.key === k.secret)?.direct_api);
    const url = opts.faults ? `http://${await (async () => {
      const session = await openChaosSession({ toxiproxyUrl: sessions[0].toxiproxyUrl, proxies: [{ name: 'client', listen: '127.0.0.1:0', upstream: new URL(svc.url).host }], now: () => clock.now(), sink: (r) => writer.write(r), exitHooks: false });
      sessions.push(session);
      closers.unshift(() => session.cleanup());
      return session.proxies.get('client')!.listen;
    })()}` : svc.url;
    const faultProxies = opts.faults ? ['upstream', 'client'] : [];
    const upstreamTimeoutMs = scaledDelays(TIME_SCALE).upstreamTimeoutMs;
    const target: TargetInfo = { url, embedded: true, presentation: opts.presentation, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS } };
    const webhooksRecord = receiver ? { receiverUrl: receiver.url, wired: true, failShare, ackTimeoutMs: ACK_MS } : null;
    const env = {
      presentation: opts.presentation,
      embedded: true,
      keys: keys.map((k) => k.handle),
      cardOutcomes: [...CARD_OUTCOMES],
      webhooks: webhooksRecord ? { wired: true, failShare } : null,
      faultProxies,
    };
    writer.write({
      ...makeRunRecord({
        runId: 'test-scenarios',
        clock,
        target,
        keys: keys.map((k) => k.handle),
        scenarios: scenarios.map((s) => ({ name: s.name, rules: s.rulesFor ? s.rulesFor(env) : s.rules })),
        seed,
        timeScale: TIME_SCALE,
        settleBoundMs: 30_000 * TIME_SCALE + 2_000,
        webhooks: webhooksRecord,
        cardOutcomes: [...CARD_OUTCOMES],
      }),
      upstreamTimeoutMs,
    });
    const wiring = receiver ? { url: receiver.url, deliveries: () => receiver.count(), ackTimeoutMs: ACK_MS } : null;
    const outcome = await runScenarios({
      scenarios,
      target,
      keys,
      cards: DEFAULT_TEST_CARDS,
      clock,
      writer,
      caps: { maxRequests: 200_000, maxDurationMs: 170_000 },
      seed,
      timeScale: TIME_SCALE,
      webhooks: wiring,
      timeoutMs: 10_000,
      ...(opts.durationMs !== undefined ? { durationMs: opts.durationMs } : {}),
      log: (m) => logs.push(m),
      faultProxies,
      upstreamTimeoutMs,
      refundFailAmount: SANDBOX_REFUND_FAIL_AMOUNT,
      ...(sessions.length ? { chaos: groupSessions(sessions) } : {}),
    });
    await writer.close();
    return {
      records,
      exchanges: records.filter((r): r is ExchangeRecord => r.kind === 'exchange'),
      webhooks: records.filter((r): r is WebhookRecord => r.kind === 'webhook'),
      outcome,
      logs,
      presentation: opts.presentation,
    };
  } finally {
    for (const c of closers.splice(0, closers.length - (opts.faults ? 2 : 0))) await c();
    await svc.close();
    for (const c of closers) await c();
    await receiver?.close();
  }
}

export function inGroup(xs: ExchangeRecord[], prefix: string): ExchangeRecord[] {
  return xs.filter((x) => x.group !== undefined && x.group.startsWith(prefix));
}
