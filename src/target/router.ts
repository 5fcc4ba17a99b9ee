/**
 * Where each request goes: /v1 requests through the gate to the API's handlers
 * by method and path, /sandbox pages, /health, and 404 for the rest. An error
 * a handler throws is answered as a 500 here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_PATHS } from '../spec/index.ts';
import type { ApiGate } from './api-gate.ts';
import type { ApiKey } from './auth.ts';
import type { BugFlags } from './bugs.ts';
import type { ServiceClock } from './clock.ts';
import type { ErrorWriter } from './errors.ts';
import { type HeaderList, JSON_TYPE, decodePathSegment, nextRequestId, send } from './http.ts';
import type { IdempotentPost } from './idempotent-post.ts';
import type { ServiceOptions } from './options.ts';
import type { PaymentReads } from './payment-reads.ts';
import { respond, writeResult } from './respond.ts';
import type { SandboxPages } from './sandbox-pages.ts';

const PAYMENT_PREFIX = `${API_PATHS.payments}/`;
const REFUND_SUFFIX = '/refund';

export class Router {
  constructor(
    private readonly gate: ApiGate,
    private readonly reads: PaymentReads,
    private readonly post: IdempotentPost,
    private readonly pages: SandboxPages,
    private readonly errors: ErrorWriter,
    private readonly clock: ServiceClock,
    private readonly options: ServiceOptions,
    private readonly bugs: BugFlags,
  ) {}

  onRequest(req: IncomingMessage, res: ServerResponse): void {
    // Node writes Date from the machine's clock; a service clock set apart writes its own.
    if (this.clock.offsetMs !== 0) res.setHeader('date', this.clock.httpDate());
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    const qs = qi < 0 ? '' : url.slice(qi + 1);
    if (path.startsWith('/v1/')) {
      this.api(req, res, path, qs).catch((err) => this.crash(res, err));
      return;
    }
    if (path.startsWith('/sandbox/')) {
      this.pages.handle(req, res, path, qs).catch((err) => this.crash(res, err));
      return;
    }
    if (path === '/health' && req.method === 'GET') return send(res, 200, '{"ok":true}', JSON_TYPE);
    const rid = nextRequestId();
    writeResult(res, this.errors.make(rid, 'resource_missing', `Unrecognized request URL (${req.method} ${path}).`), { 'request-id': rid });
  }

  /** Logs a handler's error and answers 500; past the gate, with the request's id and rate headers. */
  private crash(res: ServerResponse, err: unknown, api?: { rid: string; rh: HeaderList }): void {
    process.stderr.write(`reference service: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    if (res.headersSent) return void res.destroy();
    if (api) return respond(res, this.errors.make(api.rid, 'internal_error', 'An internal error occurred.'), api.rh, this.bugs);
    const rid = nextRequestId();
    writeResult(res, this.errors.make(rid, 'internal_error', 'An internal error occurred.'), { 'request-id': rid });
  }

  private async api(req: IncomingMessage, res: ServerResponse, path: string, qs: string): Promise<void> {
    const rid = nextRequestId();
    const admitted = this.gate.admit(req, res, rid);
    if (!admitted) return;
    const { key, rh } = admitted;
    try {
      await this.route(req, res, key, path, qs, rid, rh);
    } catch (err) {
      this.crash(res, err, { rid, rh });
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse, key: ApiKey, path: string, qs: string, rid: string, rh: HeaderList): Promise<void> {
    const method = req.method;
    if (method === 'GET') {
      if (path === API_PATHS.payments) return respond(res, this.reads.list(key, qs, rid), rh, this.bugs);
      if (path.startsWith(PAYMENT_PREFIX) && path.indexOf('/', PAYMENT_PREFIX.length) < 0) return this.reads.retrieve(res, key, path.slice(PAYMENT_PREFIX.length), rid, rh);
    } else if (method === 'POST') {
      if (path === API_PATHS.payments) return this.post.handle(req, res, key, rid, rh, 'payment_create');
      if (path === API_PATHS.hosted) return this.post.handle(req, res, key, rid, rh, 'hosted_create');
      // A refund path the service does not serve (options.refundPaths) falls through to 404 / 405.
      const refundPaths = this.options.refundPaths;
      if (path === API_PATHS.refunds && refundPaths !== 'payment') return this.post.handle(req, res, key, rid, rh, 'refund_create');
      if (path.startsWith(PAYMENT_PREFIX) && path.endsWith(REFUND_SUFFIX)) {
        const id = path.slice(PAYMENT_PREFIX.length, path.length - REFUND_SUFFIX.length);
        if (id && !id.includes('/') && refundPaths === 'refunds') {
          return respond(res, { ...this.errors.make(rid, 'resource_missing', `Method not allowed (${method} ${path}).`), status: 405 }, rh, this.bugs);
        }
        if (id && !id.includes('/')) return this.post.handle(req, res, key, rid, rh, 'refund_create', decodePathSegment(id));
      }
    }
    respond(res, this.errors.make(rid, 'resource_missing', `Unrecognized request URL (${method} ${path}).`), rh, this.bugs);
  }
}
