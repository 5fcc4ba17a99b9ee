/**
 * The gate every /v1 request passes first: authentication (AUTH) and the per-key
 * rate limit (RL). A refused request is answered here; an admitted one comes out
 * with its API key and the rate headers its answer carries.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKey, KeyRing } from './auth.ts';
import type { BugFlags } from './bugs.ts';
import type { ServiceClock } from './clock.ts';
import type { ApiResult, ErrorWriter } from './errors.ts';
import type { HeaderList } from './http.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { ServiceOptions } from './options.ts';
import type { RateLimiter } from './rate-limit.ts';
import { writeResult } from './respond.ts';

interface Admitted {
  key: ApiKey;
  /** Rate headers and request id for the answer. */
  rh: HeaderList;
}

export class ApiGate {
  /** Seeded rl-per-worker-counter bug only: the worker each connection is served by. */
  private readonly workers = new WeakMap<object, number>();
  private nextWorker = 0;

  constructor(
    private readonly keys: KeyRing,
    private readonly limiter: RateLimiter,
    private readonly errors: ErrorWriter,
    private readonly lifecycle: Lifecycle,
    private readonly clock: ServiceClock,
    private readonly options: ServiceOptions,
    private readonly bugs: BugFlags,
  ) {}

  /** The request's key and rate headers, or undefined when it was refused (401 or 429, already written). */
  admit(req: IncomingMessage, res: ServerResponse, rid: string): Admitted | undefined {
    const auth = this.keys.authenticate(req.headers.authorization);
    if (!auth.ok) {
      const h: HeaderList = { 'request-id': rid };
      if (this.bugs['auth-ratelimit-headers-on-401']) {
        h['x-ratelimit-limit'] = this.options.rateLimit;
        h['x-ratelimit-remaining'] = this.options.rateLimit;
        h['x-ratelimit-reset'] = Math.ceil((this.clock.now() + this.options.windowMs) / 1000);
      }
      writeResult(res, this.authFailure(rid, auth.reason, auth.presented), h);
      return undefined;
    }
    const key = auth.key;
    let counterKey = this.bugs['rl-shared-merchant-counter'] ? key.merchant : key.key;
    // rl-per-worker-counter: in-memory counters per worker of a (simulated) cluster, one worker per connection in turn.
    if (this.bugs['rl-per-worker-counter']) counterKey += `\u0000worker${this.workerOf(req)}`;
    const rate = this.limiter.take(counterKey, this.clock.now());
    const rh: HeaderList = { 'x-ratelimit-limit': rate.limit, 'x-ratelimit-remaining': rate.remaining, 'x-ratelimit-reset': rate.reset, 'request-id': rid };
    if (!rate.allowed) {
      if (!this.bugs['rl-no-retry-after']) rh['retry-after'] = this.bugs['rl-retry-after-zero'] ? 0 : rate.retryAfter;
      writeResult(res, this.errors.make(rid, 'rate_limit_exceeded', `Too many requests: the limit is ${rate.limit} per window for this API key.`), rh);
      return undefined;
    }
    return { key, rh };
  }

  /** The answer to a failed authentication: 401 invalid_api_key, unless a seeded AUTH/FT-5 bug answers otherwise. */
  private authFailure(rid: string, reason: 'malformed' | 'badPrefix' | 'unknown', presented?: string): ApiResult {
    // ft-auth-503-during-outage: the "validation backend unreachable" path follows the processor's health.
    if (this.bugs['ft-auth-503-during-outage'] && this.lifecycle.backlog > 0) {
      return this.errors.make(rid, 'service_unavailable', 'Authentication is temporarily unavailable; retry later.');
    }
    if (reason === 'badPrefix' && this.bugs['auth-bad-prefix-400']) return this.errors.make(rid, 'parameter_invalid', 'Invalid API key format in the Authorization header.', 'Authorization');
    if (reason === 'unknown' && this.bugs['auth-unknown-key-403']) return this.errors.make(rid, 'not_permitted', 'This API key is not permitted to perform this request.');
    return this.errors.unauthorized(rid, reason, presented);
  }

  /** rl-per-worker-counter only: the worker of a four-worker cluster that serves this connection (round robin by connection). */
  private workerOf(req: IncomingMessage): number {
    let w = this.workers.get(req.socket);
    if (w === undefined) this.workers.set(req.socket, (w = this.nextWorker++ % 4));
    return w;
  }
}
