/**
 * The reference Card Payment Service: node:http with a small router, in-memory
 * stores, rate limiting and idempotency per the spec, a sandbox processor
 * reached over HTTP, and webhooks. `startReferenceService` is the entry point;
 * this module builds the parts from the options and wires them together.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiGate } from './api-gate.ts';
import { KeyRing } from './auth.ts';
import { bugFlags, type BugFlags } from './bugs.ts';
import { ErrorWriter } from './errors.ts';
import { IdempotencyStore } from './idempotency.ts';
import { IdempotentPost, type RunOperation } from './idempotent-post.ts';
import { Lifecycle } from './lifecycle.ts';
import { serviceClock } from './clock.ts';
import { type ServiceOptions, resolveOptions, scaledDelays } from './options.ts';
import { PaymentCreator } from './payment-create.ts';
import { PaymentReads } from './payment-reads.ts';
import { Presenter } from './present.ts';
import { type RunningProcessor, startProcessor } from './processor.ts';
import { RateLimiter } from './rate-limit.ts';
import { RefundCreator } from './refund-create.ts';
import { Router } from './router.ts';
import { SandboxPages } from './sandbox-pages.ts';
import { Scheduler } from './scheduler.ts';
import { PaymentStore } from './store.ts';
import { UpstreamClient } from './upstream.ts';
import { validationOptions } from './validate.ts';
import { WebhookDispatcher } from './webhooks.ts';

export interface RunningService {
  url: string;
  port: number;
  upstreamUrl: string;
  /** The processor the service started itself (absent when upstreamUrl was given). */
  processor?: { url: string; port: number; close(): Promise<void> };
  options: ServiceOptions;
  close(): Promise<void>;
}

const IDEM_SWEEP_MS = 10 * 60_000;

export async function startReferenceService(partial: Partial<ServiceOptions> = {}): Promise<RunningService> {
  const options = resolveOptions(partial);
  const bugs = bugFlags(options.bugs);
  let processor: RunningProcessor | undefined;
  let upstreamUrl = options.upstreamUrl;
  if (!upstreamUrl) {
    processor = await startProcessor({ host: options.host, port: options.upstreamPort, timeScale: options.timeScale, cards: options.cards });
    upstreamUrl = processor.url;
  }
  const service = new ReferenceService(options, bugs, upstreamUrl.replace(/\/+$/, ''));
  try {
    const port = await service.listen();
    return {
      url: `http://${options.host}:${port}`,
      port,
      upstreamUrl,
      processor,
      options,
      close: async () => {
        await service.close();
        await processor?.close();
      },
    };
  } catch (err) {
    await service.close();
    await processor?.close();
    throw err;
  }
}

class ReferenceService {
  private readonly server: Server;
  private readonly scheduler = new Scheduler();
  private readonly upstream: UpstreamClient;
  private readonly webhooks: WebhookDispatcher;
  private readonly lifecycle: Lifecycle;

  constructor(
    private readonly options: ServiceOptions,
    bugs: BugFlags,
    upstreamUrl: string,
  ) {
    const delays = scaledDelays(options.timeScale);
    const clock = serviceClock(options.clockOffsetMs);
    if (options.challengeExpiryMs !== null && options.challengeExpiryMs !== undefined) delays.challengeExpiryMs = Math.max(1, options.challengeExpiryMs);
    if (options.webhookRetryBaseMs !== null && options.webhookRetryBaseMs !== undefined) delays.webhookRetryBaseMs = Math.max(1, options.webhookRetryBaseMs);
    const keys = new KeyRing(options.keys, bugs['auth-accepts-basic']);
    const limiter = new RateLimiter(options.rateLimit, options.windowMs, bugs);
    const idem = new IdempotencyStore(bugs);
    const store = new PaymentStore(bugs, clock);
    const presenter = new Presenter(options.presentation, bugs);
    const errors = new ErrorWriter(bugs);
    // sm-processor-unreachable: a deployment pointed at a dead processor address (loopback port 9, nothing listens).
    this.upstream = new UpstreamClient(bugs['sm-processor-unreachable'] ? 'http://127.0.0.1:9' : upstreamUrl, delays.upstreamTimeoutMs);
    this.webhooks = new WebhookDispatcher(options.webhookUrls, options.webhookSecret, options.webhookTimeoutMs, delays, this.scheduler, bugs, clock);
    this.lifecycle = new Lifecycle(store, presenter, this.webhooks, this.upstream, this.scheduler, delays, bugs, options.cards, clock);
    this.lifecycle.returnUrlAtChallenge = options.returnUrlAt3ds;
    this.lifecycle.refundEventMinimal = options.refundEvent === 'minimal';
    this.webhooks.duplicates = options.webhookDuplicates;
    const payments = new PaymentCreator(store, presenter, errors, this.lifecycle, this.scheduler, delays, validationOptions(options), options, bugs);
    const refunds = new RefundCreator(store, presenter, errors, this.lifecycle, clock, options, bugs);
    const run: RunOperation = (op, key, body, rid, pathPaymentId) => {
      if (op === 'payment_create') return payments.create(key, body, rid);
      if (op === 'hosted_create') return payments.createHosted(key, body, rid);
      return refunds.create(key, body, rid, pathPaymentId);
    };
    const router = new Router(
      new ApiGate(keys, limiter, errors, this.lifecycle, clock, options, bugs),
      new PaymentReads(store, presenter, errors, options, bugs),
      new IdempotentPost(idem, errors, run, options, bugs),
      new SandboxPages(store, this.lifecycle, bugs),
      errors,
      clock,
      options,
      bugs,
    );
    this.server = createServer((req, res) => router.onRequest(req, res));
    this.server.keepAliveTimeout = 30_000;
    const sweep = () => {
      idem.sweep();
      this.scheduler.after(IDEM_SWEEP_MS, sweep);
    };
    this.scheduler.after(IDEM_SWEEP_MS, sweep);
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        const port = (this.server.address() as AddressInfo).port;
        this.lifecycle.baseUrl = `http://${this.options.host}:${port}`;
        resolve(port);
      });
    });
  }

  async close(): Promise<void> {
    this.scheduler.close();
    await new Promise<void>((done) => {
      if (!this.server.listening) return done();
      this.server.close(() => done());
      this.server.closeAllConnections();
    });
    await this.webhooks.close();
    await this.upstream.close();
  }
}
