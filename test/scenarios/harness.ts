/**
 * Runs scenarios against the embedded reference service with an in-memory history:
 * small limit and window, a small time scale, paystorm's webhook receiver wired in.
 */
import {
  DEFAULT_TEST_CARDS,
  parseKeyArg,
  type ExchangeRecord,
  type HistoryRecord,
  type Presentation,
  type Scenario,
  type TargetInfo,
  type WebhookRecord,
  CARD_OUTCOMES,
} from '../../src/spec/index.ts';
import { RunClock, HistoryWriter, runScenarios, makeRunRecord, type RunOutcome } from '../../src/engine/index.ts';
import { makeKeySecrets } from '../../src/client/index.ts';
import { startReferenceService, DEFAULT_KEYS, DEFAULT_WEBHOOK_SECRET, type KeyConfig } from '../../src/target/index.ts';
import { startWebhookReceiver } from '../../src/webhooks/index.ts';

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
  const svc = await startReferenceService({
    port: 0,
    presentation: opts.presentation,
    rateLimit: LIMIT,
    windowMs: WINDOW_MS,
    timeScale: TIME_SCALE,
    webhookUrls: receiver ? [{ url: receiver.url, mode: 'test' }] : [],
    webhookTimeoutMs: ACK_MS,
  });
  const logs: string[] = [];
  try {
    const parsed = DEFAULT_KEYS.filter(opts.keys ?? (() => true)).map((k) => parseKeyArg(`${k.merchant}:${k.key}`));
    const keys = makeKeySecrets(parsed, (k) => DEFAULT_KEYS.find((d) => d.key === k.secret)?.direct_api);
    const target: TargetInfo = { url: svc.url, embedded: true, presentation: opts.presentation, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS } };
    const webhooksRecord = receiver ? { receiverUrl: receiver.url, wired: true, failShare, ackTimeoutMs: ACK_MS } : null;
    const env = {
      presentation: opts.presentation,
      embedded: true,
      keys: keys.map((k) => k.handle),
      cardOutcomes: [...CARD_OUTCOMES],
      webhooks: webhooksRecord ? { wired: true, failShare } : null,
    };
    writer.write(
      makeRunRecord({
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
    );
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
    await svc.close();
    await receiver?.close();
  }
}

export function inGroup(xs: ExchangeRecord[], prefix: string): ExchangeRecord[] {
  return xs.filter((x) => x.group !== undefined && x.group.startsWith(prefix));
}
