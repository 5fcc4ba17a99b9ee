/**
 * The sandbox processor: its own HTTP listener, so the service reaches it only
 * over HTTP and a Toxiproxy proxy can sit between them. It maps the test cards
 * to outcomes after a (time-scaled) decision delay.
 *
 * Protocol (JSON over HTTP, internal to the reference service):
 * - POST /v1/authorizations {reference, amount, currency, livemode, card: {number, exp_month, exp_year, cvc}, three_ds?: "success"}
 *   -> 200 {provider_reference, outcome: "approved"|"declined"|"challenge", decline_code?}
 *   -> 502 {error: "processor_error"} for the upstream-error card, on every attempt.
 * - POST /v1/refunds {reference, provider_reference, amount}
 *   -> 200 {outcome: "succeeded"|"failed"}; a refund of SANDBOX_REFUND_FAIL_AMOUNT fails.
 * - GET /health -> 200 {ok: true}
 * Answers are idempotent per reference: a retry gets the same provider_reference.
 */
import { createServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type CardsFile, DEFAULT_TEST_CARDS } from '../spec/index.ts';
import { readBody, send, JSON_TYPE } from './http.ts';
import { Scheduler } from './scheduler.ts';
import { scaledDelays, SANDBOX_REFUND_FAIL_AMOUNT } from './options.ts';

export interface ProcessorOptions {
  host?: string;
  /** 0 or absent: any free port. */
  port?: number;
  timeScale?: number;
  cards?: CardsFile;
  /** Accepted for symmetry with the service; the processor has no seeded bugs of its own. */
  bugs?: string[];
}

export interface RunningProcessor {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface AuthorizationRequest {
  reference: string;
  amount: number;
  currency: string;
  livemode: boolean;
  card: { number: string; exp_month: number; exp_year: number; cvc: string };
  three_ds?: 'success';
}
export interface RefundRequest {
  reference: string;
  provider_reference: string | null;
  amount: number;
}
export interface RefundOutcome {
  outcome: 'succeeded' | 'failed';
}

export function providerReference(reference: string): string {
  return `psp_${createHash('sha256').update(reference).digest('hex').slice(0, 20)}`;
}

type Decision = { status: number; body: unknown; delayMs: number };

export function startProcessor(opts: ProcessorOptions = {}): Promise<RunningProcessor> {
  const host = opts.host ?? '127.0.0.1';
  const delays = scaledDelays(opts.timeScale ?? 1);
  const cards = opts.cards ?? DEFAULT_TEST_CARDS;
  const scheduler = new Scheduler();

  const authorize = (r: AuthorizationRequest): Decision => {
    const ref = providerReference(r.reference);
    const n = r.card?.number;
    if (n && n === cards.upstream_error) return { status: 502, body: { error: 'processor_error' }, delayMs: delays.processorDecisionMs };
    if (n && n === cards.three_ds_challenge && r.three_ds !== 'success') {
      return { status: 200, body: { provider_reference: ref, outcome: 'challenge' }, delayMs: delays.challengeAppearMs };
    }
    if (n && n === cards.do_not_honor) return { status: 200, body: { provider_reference: ref, outcome: 'declined', decline_code: 'do_not_honor' }, delayMs: delays.processorDecisionMs };
    if (n && n === cards.insufficient_funds) {
      return { status: 200, body: { provider_reference: ref, outcome: 'declined', decline_code: 'insufficient_funds' }, delayMs: delays.processorDecisionMs };
    }
    return { status: 200, body: { provider_reference: ref, outcome: 'approved' }, delayMs: delays.processorDecisionMs };
  };

  const refund = (r: RefundRequest): Decision => ({
    status: 200,
    body: { outcome: r.amount === SANDBOX_REFUND_FAIL_AMOUNT ? 'failed' : 'succeeded' } satisfies RefundOutcome,
    delayMs: delays.refundSettleMs,
  });

  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/health') return send(res, 200, '{"ok":true}', JSON_TYPE);
    if (req.method !== 'POST' || (url !== '/v1/authorizations' && url !== '/v1/refunds')) {
      return send(res, 404, '{"error":"not_found"}', JSON_TYPE);
    }
    readBody(req).then(
      (buf) => {
        let parsed: unknown;
        try {
          parsed = buf ? JSON.parse(buf.toString('utf8')) : null;
        } catch {
          parsed = null;
        }
        if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { reference?: unknown }).reference !== 'string') {
          return send(res, 400, '{"error":"bad_request"}', JSON_TYPE);
        }
        const d = url === '/v1/authorizations' ? authorize(parsed as AuthorizationRequest) : refund(parsed as RefundRequest);
        scheduler.after(d.delayMs, () => {
          if (!res.destroyed) send(res, d.status, JSON.stringify(d.body), JSON_TYPE);
        });
      },
      () => res.destroy(),
    );
  });
  server.keepAliveTimeout = 30_000;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            scheduler.close();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
