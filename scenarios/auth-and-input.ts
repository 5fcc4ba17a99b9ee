/**
 * auth-and-input: every 401 variant and the catalog of bad inputs.
 * - `auth-<variant>`: no Authorization header, `Bearer` with no key, a Basic scheme, a key
 *   with no known prefix, a well-formed unknown key; on a list, a retrieval, a create, a hosted
 *   create and a refund. Each must be 401 `invalid_api_key` without `X-RateLimit-*` headers.
 * - `auth-403`: a key known to lack Direct API access tries a Direct API create (403
 *   `not_permitted` is an observe-rule: only judged when it happens).
 * - `bad-input-<case>`: each case of `BAD_INPUT_CASES` (src/spec/bad-inputs.ts) for the target's
 *   presentation (its own input shape, and the cases of no shape) sent through `raw` with its
 *   expected status, code and param, the rule demanding them and `demanded` or `lenient-ok`.
 * - An unknown payment id: 404 `resource_missing`.
 */
import type { KeyHandle, RawRequest, Scenario, ScenarioContext } from '../src/spec/scenario.ts';
import { API_PATHS } from '../src/spec/operations.ts';
import { REFUND_PATHS } from '../src/spec/refund.ts';
import { refundPathFor } from './lib/refund-path.ts';
import { directCreateBody, hostedCreateBody } from '../src/spec/inputs.ts';
import { api, cardFor, paymentInput, pool, step, unknownPaymentId, type Api } from './lib/common.ts';
import { loadKeys, liveKeys } from './lib/keys.ts';
import { declareRules } from './lib/rules.ts';
import { runBadInputs, BAD_INPUT_RULES, BAD_REFUND_RULES } from './lib/bad-inputs.ts';

const { rules, rulesFor } = declareRules(['AUTH-1', 'AUTH-2', 'AUTH-3', 'AUTH-4', 'PAY-17', 'ERR-1', 'ERR-2', 'SEC-2', ...BAD_INPUT_RULES], [{ rules: BAD_REFUND_RULES, cards: ['succeeds'] }]);

const AUTH_VARIANTS: NonNullable<RawRequest['auth']>[] = ['missing', 'malformed', 'basic', 'basic-raw', 'bad-prefix', 'unknown-key'];

async function authProbes(ctx: ScenarioContext, a: Api, live: Api | null): Promise<void> {
  const card = cardFor(ctx, 'succeeds');
  const shape = ctx.target.presentation;
  // The refund probe goes to a refund path the service serves (the spec leaves open which).
  const refundPath = refundPathFor(await a.refundPaths(), 'payment');
  const reqs: { op: 'list' | 'retrieve' | 'create' | 'create_hpp' | 'refund' | 'refund_create'; req: Omit<RawRequest, 'auth'> }[] = [
    { op: 'list', req: { method: 'GET', path: `${API_PATHS.payments}?limit=1` } },
    { op: 'retrieve', req: { method: 'GET', path: API_PATHS.payment(unknownPaymentId()) } },
    { op: 'create', req: { method: 'POST', path: API_PATHS.payments, body: directCreateBody(paymentInput(ctx, card), shape) } },
    { op: 'create_hpp', req: { method: 'POST', path: API_PATHS.hosted, body: hostedCreateBody(paymentInput(ctx, null)) } },
    refundPath === 'payment'
      ? { op: 'refund', req: { method: 'POST', path: REFUND_PATHS.paymentScoped(unknownPaymentId()), body: { amount: 100 } } }
      : { op: 'refund_create', req: { method: 'POST', path: REFUND_PATHS.topLevel, body: { payment_id: unknownPaymentId(), amount: 100 } } },
  ];
  const probes: (() => Promise<unknown>)[] = [];
  for (const auth of AUTH_VARIANTS) {
    for (const { op, req } of reqs) {
      probes.push(() => a.raw({ ...req, auth }, { group: `auth-${auth}`, op }));
    }
  }
  // A well-formed unknown key in the live form too (a 401 probe: nothing is created).
  if (live) probes.push(() => live.raw({ method: 'GET', path: `${API_PATHS.payments}?limit=1`, auth: 'unknown-key' }, { group: 'auth-unknown-key', op: 'list' }));
  await pool(ctx, probes, 4, (p) => p());
}

async function forbidden(ctx: ScenarioContext, k: KeyHandle): Promise<void> {
  const card = cardFor(ctx, 'succeeds');
  if (!card) return;
  const a = api(ctx, k);
  await a.create(paymentInput(ctx, card), { cardOutcome: 'succeeds', group: 'auth-403' });
}

async function run(ctx: ScenarioContext): Promise<void> {
  const keys = loadKeys(ctx);
  if (keys.length === 0) return ctx.log('auth-and-input: no test key; skipping');
  const a = api(ctx, keys[0]);
  const lk = liveKeys(ctx)[0];
  await step(ctx, '401 variants', () => authProbes(ctx, a, lk ? api(ctx, lk) : null));
  const noDirect = ctx.testKeys.find((k) => k.directApi === false);
  if (noDirect) await step(ctx, '403', () => forbidden(ctx, noDirect));
  await step(ctx, 'unknown id', () => a.retrieve(unknownPaymentId(), { group: 'unknown-id', unknownId: true }));
  await step(ctx, 'bad inputs', () => runBadInputs(ctx, keys.map((k) => api(ctx, k))));
}

const scenario: Scenario = {
  name: 'auth-and-input',
  description: 'Every 401 variant (no rate headers), the catalog of bad inputs of the presentation the target speaks, with their code, param and demanding rule, an unknown id',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01'],
  defaultSuite: true,
  run,
};
export default scenario;
