/**
 * What every POST of the API goes through before and after its operation runs:
 * the Direct API permission, the Idempotency-Key header, the JSON body, and the
 * idempotency protocol around the run (replay, different body, in flight; IDEM rules).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type IdempotencyScope, LIMITS } from '../spec/index.ts';
import type { ApiKey } from './auth.ts';
import type { BugFlags } from './bugs.ts';
import type { ApiResult, ErrorWriter } from './errors.ts';
import { type HeaderList, readBody } from './http.ts';
import { type IdempotencyStore, canonicalJson } from './idempotency.ts';
import type { ServiceOptions } from './options.ts';
import { respond } from './respond.ts';

type Json = Record<string, unknown>;

/** Runs one POST operation (a create, a hosted create or a refund) on its parsed body. */
export type RunOperation = (op: IdempotencyScope, key: ApiKey, body: Json, rid: string, pathPaymentId?: string) => Promise<ApiResult> | ApiResult;

export class IdempotentPost {
  /** Seeded idem-ghost-duplicate bug only: the first request's pending answer per idempotency entry. */
  private readonly ghostFirsts = new Map<string, Promise<ApiResult>>();

  constructor(
    private readonly idem: IdempotencyStore,
    private readonly errors: ErrorWriter,
    private readonly run: RunOperation,
    private readonly options: ServiceOptions,
    private readonly bugs: BugFlags,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, key: ApiKey, rid: string, rh: HeaderList, op: IdempotencyScope, pathPaymentId?: string): Promise<void> {
    const reply = (r: ApiResult, extra?: HeaderList) => respond(res, r, rh, this.bugs, extra);
    if (op === 'payment_create' && !key.directApi) {
      return reply(this.errors.make(rid, 'not_permitted', 'This API key is not permitted to use the Direct API (POST /v1/payments).'));
    }
    const header = req.headers['idempotency-key'];
    const idemKey = Array.isArray(header) ? header[0] : header;
    if (!idemKey && !this.bugs['idem-missing-key-accepted']) {
      return reply(this.errors.make(rid, 'parameter_missing', 'Missing required header: Idempotency-Key.', 'Idempotency-Key'));
    }
    if (idemKey && idemKey.length > LIMITS.idempotencyKeyMaxLength && !this.bugs['idem-no-length-limit']) {
      return reply(this.errors.make(rid, 'parameter_invalid', `Invalid Idempotency-Key: at most ${LIMITS.idempotencyKeyMaxLength} characters.`, 'Idempotency-Key'));
    }
    const buf = await readBody(req);
    if (buf === null) return reply(this.errors.make(rid, 'invalid_request_body', 'The request body is too large.'));
    const text = buf.toString('utf8');
    let body: Json;
    if (text.trim() === '' && op === 'refund_create') body = {};
    else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        if (this.bugs['pay-bad-json-parameter-invalid']) return reply(this.errors.make(rid, 'parameter_invalid', 'Invalid request: the body could not be read.'));
        return reply(this.errors.make(rid, 'invalid_request_body', 'The request body is not valid JSON.'));
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return reply(this.errors.make(rid, 'invalid_request_body', 'The request body must be a JSON object.'));
      }
      body = parsed as Json;
    }
    const exec = () => this.run(op, key, body, rid, pathPaymentId);
    if (!idemKey) return reply(await exec());

    // Both refund paths are one operation: the fingerprint is the refund request itself.
    const fingerprint = op === 'refund_create' ? canonicalJson({ payment_id: pathPaymentId ?? body.payment_id, amount: body.amount }) : canonicalJson(body);
    let scope: string = op;
    if (this.bugs['idem-shared-operation-scope']) scope = 'post';
    if (op === 'refund_create' && this.bugs['ref-scope-per-path']) scope = pathPaymentId !== undefined ? 'refund_by_path' : 'refund_top_level';
    const storeKey = `${this.bugs['idem-global-scope'] ? '' : key.key}\u0000${scope}\u0000${idemKey}`;
    const verdict = this.idem.begin(storeKey, fingerprint);
    if (verdict.kind === 'replay') {
      // Seeded IDEM-3 bug: a payment create runs again before the cached answer is replayed.
      if (this.bugs['idem-replay-reexecutes'] && op !== 'refund_create') await exec();
      return reply(verdict, { 'idempotent-replayed': 'true' });
    }
    if (verdict.kind === 'different_body') {
      return reply(this.errors.make(rid, this.options.differentBodyCode, 'This Idempotency-Key was already used with a different request body.', 'Idempotency-Key'));
    }
    if (verdict.kind === 'in_flight') {
      const first = this.bugs['idem-ghost-duplicate'] ? this.ghostFirsts.get(storeKey) : undefined;
      if (first) {
        // Seeded IDEM-6 bug: create anyway, but answer with the first request's response.
        await exec();
        return reply(await first, { 'idempotent-replayed': 'true' });
      }
      if (this.bugs['idem-in-flight-reused-code']) return reply(this.errors.make(rid, 'idempotency_key_reused', 'This Idempotency-Key was already used.', 'Idempotency-Key'));
      return reply(this.errors.make(rid, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still in flight; retry later.', 'Idempotency-Key'));
    }
    let result: ApiResult;
    try {
      const running = exec();
      if (this.bugs['idem-ghost-duplicate']) this.ghostFirsts.set(storeKey, Promise.resolve(running));
      result = await running;
    } catch (err) {
      this.idem.release(storeKey);
      throw err;
    } finally {
      if (this.bugs['idem-ghost-duplicate']) setTimeout(() => this.ghostFirsts.delete(storeKey), 1000).unref();
    }
    this.idem.finish(storeKey, fingerprint, result.status, result.body, result.contentType);
    reply(result);
  }
}
