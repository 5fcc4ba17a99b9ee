/**
 * Drives the catalog of bad inputs (src/spec/bad-inputs.ts: every input rule of both input
 * shapes) through `raw`, sending the target only the cases of its own presentation's input
 * shape (and those of no shape), and recording each case's rule, expectation (`demanded`,
 * `lenient-ok` or `either`) and the params it may name in `sent.badInput` for the oracle.
 * Refund cases run against one succeeded payment (they are all refused, so one payment serves them all).
 */
import type { CallOptions, RawRequest, ScenarioContext } from '../../src/spec/scenario.ts';
import type { ExchangeRecord } from '../../src/history/schema.ts';
import { BAD_INPUT_CASES, REFUND_BASE_PAYMENT_AMOUNT, badInputCasesFor, listQueryString, validBadInputBase, type BadInputCase } from '../../src/spec/bad-inputs.ts';
import { API_PATHS } from '../../src/spec/operations.ts';
import { REFUND_PATHS } from '../../src/spec/refund.ts';
import { IDEMPOTENCY_HEADER } from '../../src/spec/limits.ts';
import { pool, succeededPayment, type Api } from './common.ts';
import { refundPathFor } from './refund-path.ts';
import type { RefundPath } from '../../src/spec/refund.ts';

const uniq = (xs: string[]) => [...new Set(xs)].sort();
/** Rules of the cases that need nothing but a key. */
export const BAD_INPUT_RULES: string[] = uniq(BAD_INPUT_CASES.filter((c) => c.op !== 'refund').flatMap((c) => c.rules));
/** Rules of the refund cases (they need a succeeded payment, so the succeeds card). */
export const BAD_REFUND_RULES: string[] = uniq(BAD_INPUT_CASES.filter((c) => c.op === 'refund').flatMap((c) => c.rules));

type RawOpts = CallOptions & { sent?: Partial<ExchangeRecord['sent']>; op?: ExchangeRecord['op'] };

/**
 * The request and call options of one case; null when it needs a payment that is missing.
 * Refund cases go to `refundPath` (a path the target serves; default the payment-scoped one).
 */
export function badInputRequest(ctx: ScenarioContext, c: BadInputCase, refundPaymentId: string | null, refundPath: RefundPath = 'payment'): { req: RawRequest; opts: RawOpts } | null {
  const shape = c.shape ?? ctx.target.presentation;
  const valid = validBadInputBase(c.op, shape, ctx.cards);
  const body = c.mutate(valid, ctx.cards);
  const headers: Record<string, string> = {};
  const opts: RawOpts = {
    group: 'bad-input',
    op: c.op,
    sent: {
      badInput: { case: c.case, expectStatus: c.expectStatus, expectCode: c.expectCode, expectParam: c.expectParam, ...(c.altParams ? { altParams: c.altParams } : {}), rule: c.rule, expectation: c.expectation },
      ...(c.shape ? { inputShape: c.shape } : {}),
    },
  };
  for (const [name, value] of Object.entries(c.headers ?? {})) {
    if (name.toLowerCase() === IDEMPOTENCY_HEADER) {
      if (value === null) opts.omitIdemKey = true;
      else opts.idemKey = value;
    } else if (value !== null) headers[name.toLowerCase()] = value;
  }
  let req: RawRequest;
  switch (c.op) {
    case 'list': {
      const q = typeof body === 'string' ? body : listQueryString(body);
      req = { method: 'GET', path: q ? `${API_PATHS.payments}?${q}` : API_PATHS.payments };
      break;
    }
    case 'refund':
      if (!refundPaymentId) return null;
      // The payment and amount probed, for the ledger's refund requests (bad-refund-no-effect).
      opts.sent = { ...opts.sent, paymentId: refundPaymentId, ...(body && typeof body === 'object' && 'amount' in body ? { amount: (body as { amount?: unknown }).amount } : {}) };
      if (refundPath === 'refunds') {
        opts.op = 'refund_create';
        req = { method: 'POST', path: REFUND_PATHS.topLevel, body: body && typeof body === 'object' ? { payment_id: refundPaymentId, ...body } : body };
      } else req = { method: 'POST', path: REFUND_PATHS.paymentScoped(refundPaymentId), body };
      break;
    case 'create_hpp':
      req = { method: 'POST', path: API_PATHS.hosted, body };
      break;
    default:
      req = { method: 'POST', path: API_PATHS.payments, body };
  }
  if (Object.keys(headers).length) req.headers = headers;
  return { req, opts };
}

export async function runBadInputs(ctx: ScenarioContext, apis: Api[]): Promise<void> {
  if (apis.length === 0) return;
  // A service is sent only its own input shape's cases: a field the other shape never had is not "missing".
  const cases = badInputCasesFor(ctx.target.presentation);
  const needsPayment = cases.some((c) => c.op === 'refund');
  const payment = needsPayment ? await succeededPayment(ctx, apis[0], { amount: REFUND_BASE_PAYMENT_AMOUNT * 10 }) : null;
  if (needsPayment && !payment) ctx.log('auth-and-input: no succeeded payment for the refund cases; skipping them');
  const refundPath = payment ? refundPathFor(await apis[0].refundPaths(), 'payment') : 'payment';
  let skipped = 0;
  await pool(ctx, cases, 4, async (c, i) => {
    const r = badInputRequest(ctx, c, c.op === 'refund' ? (payment?.id ?? null) : null, refundPath);
    if (!r) {
      skipped++;
      return;
    }
    // Refund cases use the key that owns the payment.
    const a = c.op === 'refund' ? apis[0] : apis[i % apis.length];
    await a.raw(r.req, r.opts);
  });
  // A refused refund must not move money: the payment afterwards shows nothing refunded (REF-4).
  if (payment && !ctx.signal.aborted) await apis[0].retrieve(payment.id, { group: 'bad-input' });
  ctx.log(`auth-and-input: ${cases.length - skipped} bad-input cases of presentation ${ctx.target.presentation} sent`);
}
