/**
 * Which refund path the target serves. The spec names `POST /v1/payments/{id}/refund` and
 * `POST /v1/refunds` and calls neither authoritative, so a deployment may serve one. Once per
 * run (per target), the first refund of any scenario asks: a hosted payment (not refundable yet,
 * so no money moves), one refund of it on each path, then a GET of it, all in the group
 * `refund-path-discovery`. A 404 or 405 means "not served"; anything else (a 422, an answer under
 * faults, no answer) counts as served. Every refund a scenario sends then goes to a served path:
 * the one it asked for when served, else the other. The oracle derives the same finding from
 * these exchanges alone (src/oracle/lib/refund-paths.ts).
 */
import type { ApiClient, KeyHandle, ScenarioContext } from '../../src/spec/scenario.ts';
import type { PaymentInput } from '../../src/spec/inputs.ts';
import { REFUND_PATH_DISCOVERY_GROUP, REFUND_PATH_NOT_SERVED_STATUSES, type RefundPath } from '../../src/spec/refund.ts';
import { pacerFor } from './pace.ts';
import { loadKeys } from './keys.ts';

export type ServedRefundPaths = Readonly<Record<RefundPath, boolean>>;
const BOTH: ServedRefundPaths = Object.freeze({ payment: true, refunds: true });

/** One discovery per run (the run's abort signal is shared by its scenarios) and target. */
const discoveries = new WeakMap<AbortSignal, Map<string, Promise<ServedRefundPaths>>>();

/** The served refund paths, discovered on first use in this run. `hostedInput` builds a valid hosted-page create. */
export function servedRefundPaths(ctx: ScenarioContext, hostedInput: () => PaymentInput): Promise<ServedRefundPaths> {
  let byTarget = discoveries.get(ctx.signal);
  if (!byTarget) discoveries.set(ctx.signal, (byTarget = new Map()));
  let p = byTarget.get(ctx.target.url);
  if (!p) {
    p = discover(ctx, hostedInput).catch((e) => {
      ctx.log(`refund path discovery failed (${(e as Error).message}); sending refunds to both paths`);
      return BOTH;
    });
    byTarget.set(ctx.target.url, p);
  }
  return p;
}

/** The path to send a refund to: the one asked for (default the payment-scoped one) when served, else the other. */
export function refundPathFor(served: ServedRefundPaths, wanted: RefundPath | undefined): RefundPath {
  const want = wanted ?? 'payment';
  if (served[want]) return want;
  const other: RefundPath = want === 'payment' ? 'refunds' : 'payment';
  return served[other] ? other : want;
}

async function discover(ctx: ScenarioContext, hostedInput: () => PaymentInput): Promise<ServedRefundPaths> {
  const key: KeyHandle | undefined = loadKeys(ctx)[0] ?? ctx.testKeys[0];
  if (!key) return BOTH;
  const client: ApiClient = ctx.client(key);
  const pacer = pacerFor(ctx, key);
  const group = REFUND_PATH_DISCOVERY_GROUP;
  await pacer.acquire(1, ctx.signal);
  const h = await client.createHosted(hostedInput(), { group });
  if (!h.payment) {
    ctx.log(`refund path discovery: the hosted create answered ${h.status}; sending refunds to both paths`);
    return BOTH;
  }
  const answers: Record<RefundPath, number> = { payment: 0, refunds: 0 };
  for (const path of ['payment', 'refunds'] as const) {
    await pacer.acquire(1, ctx.signal);
    answers[path] = (await client.refund(h.payment.id, { amount: 1 }, { path, group })).status;
  }
  // The payment afterwards: the oracle checks that an unserved path left it untouched.
  await pacer.acquire(1, ctx.signal);
  await client.retrieve(h.payment.id, { group });
  const served = { payment: !REFUND_PATH_NOT_SERVED_STATUSES.includes(answers.payment), refunds: !REFUND_PATH_NOT_SERVED_STATUSES.includes(answers.refunds) };
  if (!served.payment && !served.refunds) {
    ctx.log(`refund path discovery: both paths answered 404/405 (${answers.payment}, ${answers.refunds}); sending refunds to both`);
    return BOTH;
  }
  ctx.log(`refund paths: POST /v1/payments/{id}/refund ${served.payment ? 'served' : `not served (${answers.payment})`}, POST /v1/refunds ${served.refunds ? 'served' : `not served (${answers.refunds})`}`);
  return Object.freeze(served);
}
