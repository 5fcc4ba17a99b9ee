/**
 * The embedded stack `paystorm run` starts when no --target is given:
 * sandbox processor <- Toxiproxy-compatible proxy ("upstream") <- reference service,
 * and paystorm's webhook receiver as the service's webhook endpoint. Every
 * listener is on 127.0.0.1 and an OS-chosen port.
 */
import { startProcessor, startReferenceService, DEFAULT_KEYS, DEFAULT_WEBHOOK_SECRET } from '../target/index.ts';
import { scaledDelays } from '../target/options.ts';
import type { VariantOptions } from '../target/variants.ts';
import { startToxiproxyServer } from '../chaos/proxy/index.ts';
import type { CardsFile, Presentation } from '../spec/index.ts';

export interface EmbeddedOptions {
  presentation: Presentation;
  rateLimit: number;
  windowMs: number;
  timeScale: number;
  cards: CardsFile;
  bugs: string[];
  /**
   * Where the service delivers webhooks (paystorm's receiver): test-mode events to
   * `<webhookUrl>/test`, live-mode events to `<webhookUrl>/live` (endpoints are configured per
   * mode, WH-10), so the receiver's path tells which endpoint an event was sent to.
   */
  webhookUrl: string | null;
  webhookSecret?: string;
  webhookTimeoutMs?: number;
  /** Use this Toxiproxy instead of starting the embedded one. */
  toxiproxyUrl?: string;
  /** A conforming variant's service options (src/target/variants.ts), applied over the defaults. */
  variant?: VariantOptions;
}

export interface EmbeddedStack {
  targetUrl: string;
  processorUrl: string;
  toxiproxyUrl: string;
  /** The address the service's upstream proxy must listen on, and where it forwards. */
  upstreamProxy: { name: 'upstream'; listen: string; upstream: string };
  keys: readonly { key: string; merchant: string; direct_api: boolean }[];
  webhookSecret: string;
  /** Starts the service once the upstream proxy exists (its listen address is the service's upstream URL). */
  startService(upstreamListen: string): Promise<string>;
  close(): Promise<void>;
}

export const EMBEDDED_WEBHOOK_SECRET = DEFAULT_WEBHOOK_SECRET;

/** Receiver paths (under the webhook URL's own path) of each mode's endpoint on the embedded service. */
export const EMBEDDED_WEBHOOK_MODE_PATHS: Readonly<Record<'test' | 'live', string>> = Object.freeze({ test: '/test', live: '/live' });

/** The embedded service's 3DS challenge time-out at this time scale (its scaled `challengeExpiryMs`), for SM-4. */
export function embeddedChallengeTimeoutMs(timeScale: number): number {
  return scaledDelays(timeScale).challengeExpiryMs;
}

/** One endpoint per mode on the same receiver (`<base>/test`, `<base>/live`). */
export function embeddedWebhookEndpoints(baseUrl: string): { url: string; mode: 'test' | 'live' }[] {
  const base = baseUrl.replace(/\/+$/, '');
  return (['test', 'live'] as const).map((mode) => ({ url: `${base}${EMBEDDED_WEBHOOK_MODE_PATHS[mode]}`, mode }));
}

/** The run record's `webhooks.endpoints` for those endpoints: receiver paths by mode. */
export function embeddedWebhookPaths(baseUrl: string): { path: string; mode: 'test' | 'live' }[] {
  return embeddedWebhookEndpoints(baseUrl).map((e) => ({ path: new URL(e.url).pathname, mode: e.mode }));
}
/**
 * The embedded service's first webhook retry delay is at least this (ms): scaled 1 s would be
 * 50 ms, within reach of timer jitter on a busy machine, and WH-9 judges that the gaps between
 * attempts grow (250, 500, 1000 ms for an event failed three times).
 */
export const EMBEDDED_WEBHOOK_RETRY_BASE_MIN_MS = 250;

/** Payments waiting on an unreachable processor beyond which the embedded service answers 503. */
export const EMBEDDED_UPSTREAM_BACKLOG = 20;

/** Starts the processor and (unless given) the embedded Toxiproxy; the service starts after the proxy is created. */
export async function startEmbeddedStack(o: EmbeddedOptions): Promise<EmbeddedStack> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const processor = await startProcessor({ host: '127.0.0.1', port: 0, timeScale: o.timeScale, cards: o.cards, bugs: o.bugs });
    closers.push(() => processor.close());
    let toxiproxyUrl = o.toxiproxyUrl;
    if (!toxiproxyUrl) {
      const proxy = await startToxiproxyServer({ host: '127.0.0.1', port: 0 });
      closers.push(() => proxy.close());
      toxiproxyUrl = proxy.url;
    }
    const webhookSecret = o.webhookSecret ?? DEFAULT_WEBHOOK_SECRET;
    const stack: EmbeddedStack = {
      targetUrl: '',
      processorUrl: processor.url,
      toxiproxyUrl,
      upstreamProxy: { name: 'upstream', listen: '127.0.0.1:0', upstream: new URL(processor.url).host },
      keys: o.variant?.keys ?? DEFAULT_KEYS,
      webhookSecret,
      async startService(upstreamListen: string) {
        const service = await startReferenceService({
          ...(o.variant ?? {}),
          port: 0,
          host: '127.0.0.1',
          presentation: o.presentation,
          rateLimit: o.rateLimit,
          windowMs: o.windowMs,
          timeScale: o.timeScale,
          upstreamUrl: `http://${upstreamListen}`,
          webhookUrls: o.webhookUrl ? embeddedWebhookEndpoints(o.webhookUrl) : [],
          webhookSecret,
          ...(o.webhookTimeoutMs !== undefined ? { webhookTimeoutMs: o.webhookTimeoutMs } : {}),
          // A variant's own first retry delay (slow-first-retry) wins over the floor.
          webhookRetryBaseMs: o.variant?.webhookRetryBaseMs ?? Math.max(EMBEDDED_WEBHOOK_RETRY_BASE_MIN_MS, scaledDelays(o.timeScale).webhookRetryBaseMs),
          cards: o.cards,
          bugs: o.bugs,
          // Shed load early while the processor is down, so 503 service_unavailable (ERR-4, FT-4)
          // happens in a chaos run rather than only past 10,000 stranded payments.
          upstreamBacklogLimit: EMBEDDED_UPSTREAM_BACKLOG,
        });
        closers.unshift(() => service.close());
        stack.targetUrl = service.url;
        return service.url;
      },
      async close() {
        for (const c of closers.splice(0)) await c().catch(() => {});
      },
    };
    return stack;
  } catch (e) {
    for (const c of closers.reverse()) await c().catch(() => {});
    throw e;
  }
}
