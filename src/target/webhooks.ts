/**
 * Webhook deliveries (spec "Events"): POST JSON to the endpoints configured for
 * the event's merchant and mode, signed with Service-Signature; a non-2xx or no
 * answer within the acknowledge time is retried with exponential backoff
 * (time-scaled) until the (time-scaled) 24 h window ends. Retries keep the event id.
 */
import { SYSTEM_CLOCK, type ServiceClock } from './clock.ts';
import { createHmac, randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { type EventType, type Mode, EVENT_ID_PREFIX, SIGNATURE_HEADER, signPayload } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import type { Delays, WebhookEndpoint } from './options.ts';
import type { Scheduler } from './scheduler.ts';

export interface DeliveryLog {
  eventId: string;
  type: string;
  url: string;
  attempts: number;
  /** 'pending' while retries remain, then 'delivered' or 'failed'. */
  state: 'pending' | 'delivered' | 'failed';
}

interface Delivery {
  log: DeliveryLog;
  created: number;
  livemode: boolean;
  /** The `data` object's JSON, rendered at each attempt (the payment as GET returns it then). */
  data: () => string;
  firstAttemptMs: number;
}

export class WebhookDispatcher {
  private readonly agent: Agent;
  private readonly closing = new AbortController();
  /** Recent deliveries, for inspection (bounded). */
  readonly deliveries: DeliveryLog[] = [];
  private static readonly KEEP = 10_000;
  /**
   * Set by the service for the webhook-at-least-once variant (options.webhookDuplicates): every
   * event is delivered twice with one id, each delivery with its own retries, at random delays.
   */
  duplicates = false;

  constructor(
    private readonly endpoints: readonly WebhookEndpoint[],
    private readonly secret: string,
    private readonly timeoutMs: number,
    private readonly delays: Delays,
    private readonly scheduler: Scheduler,
    private readonly bugs: BugFlags,
    private readonly clock: ServiceClock = SYSTEM_CLOCK,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 5_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  }

  /** Endpoints for a merchant and mode: the most specific configured level wins. */
  endpointsFor(merchant: string, mode: Mode): string[] {
    const modeOk = (e: WebhookEndpoint) => this.bugs['wh-live-to-test-endpoint'] || e.mode === mode;
    const levels: ((e: WebhookEndpoint) => boolean)[] = [
      (e) => e.merchant === merchant && e.mode !== undefined && modeOk(e),
      (e) => e.merchant === merchant && e.mode === undefined,
      (e) => e.merchant === undefined && e.mode !== undefined && modeOk(e),
      (e) => e.merchant === undefined && e.mode === undefined,
    ];
    for (const level of levels) {
      const urls = this.endpoints.filter(level).map((e) => e.url);
      if (urls.length) return urls;
    }
    return [];
  }

  get enabled(): boolean {
    return this.endpoints.length > 0;
  }

  emit(type: EventType | string, merchant: string, mode: Mode, dataKey: 'payment' | 'refund', data: () => string): void {
    if (this.scheduler.isClosed) return;
    const created = this.clock.seconds();
    const eventId = newEventId();
    for (const url of this.endpointsFor(merchant, mode)) {
      if (!this.duplicates) {
        void this.attempt(this.newDelivery(eventId, type, url, created, mode, dataKey, data));
        continue;
      }
      // At-least-once, unordered: the first delivery is jittered, and a copy with the same id follows it.
      const firstMs = Math.random() * this.delays.webhookDuplicateMaxMs;
      const copyMs = firstMs + Math.random() * this.delays.webhookDuplicateMaxMs;
      for (const ms of [firstMs, copyMs]) {
        const d = this.newDelivery(eventId, type, url, created, mode, dataKey, data);
        this.scheduler.after(ms, () => {
          d.firstAttemptMs = Date.now();
          void this.attempt(d);
        });
      }
    }
  }

  private newDelivery(eventId: string, type: string, url: string, created: number, mode: Mode, dataKey: 'payment' | 'refund', data: () => string): Delivery {
    const log: DeliveryLog = { eventId, type, url, attempts: 0, state: 'pending' };
    this.deliveries.push(log);
    if (this.deliveries.length > WebhookDispatcher.KEEP) this.deliveries.splice(0, this.deliveries.length - WebhookDispatcher.KEEP);
    return { log, created, livemode: mode === 'live', data: () => `{"${dataKey}":${data()}}`, firstAttemptMs: Date.now() };
  }

  private async attempt(d: Delivery): Promise<void> {
    if (this.scheduler.isClosed) return;
    d.log.attempts++;
    if (d.log.attempts > 1 && this.bugs['wh-new-id-on-retry']) d.log.eventId = newEventId();
    // wh-created-at-iso: created_at as `new Date().toISOString()` instead of Unix seconds.
    const createdAt = this.bugs['wh-created-at-iso'] ? JSON.stringify(new Date(d.created * 1000).toISOString()) : d.created;
    const body = `{"id":${JSON.stringify(d.log.eventId)},"type":${JSON.stringify(d.log.type)},"created_at":${createdAt},"livemode":${d.livemode},"data":${d.data()}}`;
    const nowMs = this.clock.now();
    const t = this.bugs['wh-timestamp-ms'] ? nowMs : Math.floor(nowMs / 1000);
    const signature = this.bugs['wh-bad-signature'] ? signBodyOnly(this.secret, body, t) : signPayload(this.secret, body, t);
    let ok = false;
    try {
      const res = await request(d.log.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature, 'user-agent': 'paystorm-reference-service' },
        body,
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      await res.body.dump();
      ok = res.statusCode >= 200 && res.statusCode < 300;
    } catch {
      ok = false;
    }
    if (ok) {
      d.log.state = 'delivered';
      return;
    }
    const step = this.bugs['wh-retry-fixed-interval'] ? 0 : d.log.attempts - 1;
    const backoff = Math.min(this.delays.webhookRetryMaxMs, this.delays.webhookRetryBaseMs * 2 ** step);
    if (this.bugs['wh-no-retry'] || Date.now() + backoff - d.firstAttemptMs > this.delays.webhookRetryWindowMs) {
      d.log.state = 'failed';
      return;
    }
    this.scheduler.after(backoff, () => void this.attempt(d));
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.agent.destroy().catch(() => {});
  }
}

function newEventId(): string {
  return `${EVENT_ID_PREFIX}${randomUUID().replace(/-/g, '')}`;
}

function signBodyOnly(secret: string, body: string, t: number): string {
  // The seeded WH-1 bug: the MAC leaves out the `<t>.` prefix.
  return signPayload(secret, body, t).replace(/v1=[0-9a-f]+/, `v1=${hmacHex(secret, body)}`);
}

function hmacHex(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}
