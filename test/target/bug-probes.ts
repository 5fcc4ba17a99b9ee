/**
 * One probe per seeded bug: it drives a fresh service (started with the given
 * bugs) from outside, through HTTP and webhooks, and returns what it saw break,
 * or null when the rule held. bugs*.test.ts run each probe clean and bugged.
 */
import { EVENT_TYPES, SIGNATURE_HEADER, normalizePayment, verifySignature } from '../../src/spec/index.ts';
import { DEFAULT_WEBHOOK_SECRET, SANDBOX_REFUND_FAIL_AMOUNT, startProcessor, startReferenceService, type BugName, type RunningService, type ServiceOptions } from '../../src/target/index.ts';
import { CARDS, KEYS, card, client, freshIdem, http, rateHeaders, sleep, startReceiver, startTcpProxy, until, type Client, type Delivery } from './helpers.ts';
import { Client as UndiciClient } from 'undici';

interface Env {
  start(opts?: Partial<ServiceOptions>): Promise<{ s: RunningService; c: Client }>;
  receiver(status?: (n: number) => number): Promise<{ url: string; deliveries: Delivery[] }>;
  proxy(targetPort: number): ReturnType<typeof startTcpProxy>;
  /** A loopback port nothing listens on (a processor that is down). */
  closedPort(): Promise<number>;
}
export type Probe = (env: Env) => Promise<string | null>;

/** Runs a probe against a service with `bugs`, closing everything it started. */
export async function runProbe(probe: Probe, bugs: string[]): Promise<string | null> {
  const closers: (() => Promise<void>)[] = [];
  const env: Env = {
    start: async (opts = {}) => {
      const s = await startReferenceService({ port: 0, timeScale: 0.01, ...opts, bugs });
      closers.push(() => s.close());
      return { s, c: client(s, KEYS.acmeTest) };
    },
    receiver: async (status) => {
      const r = await startReceiver(status ? (n) => status(n) : undefined);
      closers.push(r.close);
      return r;
    },
    proxy: async (port) => {
      const p = await startTcpProxy(port);
      closers.push(p.close);
      return p;
    },
    closedPort: async () => {
      const p = await startProcessor({});
      await p.close();
      return p.port;
    },
  };
  try {
    return await probe(env);
  } finally {
    for (const c of closers.reverse()) await c();
  }
}

const violation = (cond: boolean, what: string) => (cond ? what : null);
const live = { number: '5555555555554444', exp_month: 12, exp_year: 2099, cvc: '123', holder_name: 'Live' };
const isPaymentEvent = (d: Delivery, id: string) => d.body?.data?.payment?.id === id;

async function paid(c: Client, amount = 1000): Promise<string> {
  const r = await c.create({ amount });
  await c.waitFor(r.json.id, (p) => p.status === 'succeeded');
  return r.json.id;
}
async function settledRefunds(c: Client, id: string) {
  return c.waitFor(id, (p) => (p.refunds ?? []).length > 0 && p.refunds!.every((r) => r.status !== 'pending'));
}
async function threeDsRequired(c: Client) {
  const r = await c.create({ card: card(CARDS.three_ds_challenge) });
  return c.waitFor(r.json.id, (p) => p.status === 'requires_action');
}
async function submitHosted(s: RunningService, url: string, number: string) {
  const form = new URLSearchParams({ number, exp_month: '12', exp_year: '2099', cvc: '123', holder_name: 'x' });
  return http(s.url, 'POST', url, { key: null, idem: null, body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}
async function statuses(c: Client, n: number, path = '/v1/payments') {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await c.get(path));
  return out;
}
async function createMany(c: Client, n: number, over: Parameters<Client['create']>[0] = {}) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await c.create(over)).json.id);
  return ids;
}
async function walk(c: Client, query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after = '';
  for (let i = 0; i < 100; i++) {
    const r = await c.get(`/v1/payments?limit=${limit}${query}${after ? `&starting_after=${after}` : ''}`);
    const page: string[] = r.json.data.map((p: any) => p.id);
    ids.push(...page);
    if (!r.json.has_more || page.length === 0) return ids;
    after = page[page.length - 1];
  }
  return ids;
}

export const PROBES: Record<BugName, Probe> = {
  // ------------------------------------------------------------ RL
  'rl-off-by-one': async (env) => {
    const { c } = await env.start({ rateLimit: 3, windowMs: 2000 });
    const ok = (await statuses(c, 5)).filter((r) => r.status === 200).length;
    return violation(ok > 3, `${ok} requests admitted in a window with limit 3`);
  },
  'rl-sliding-window': async (env) => {
    const { c } = await env.start({ rateLimit: 4, windowMs: 2000 });
    await statuses(c, 2);
    // The window began before this instant, so two seconds after it a fixed window has reset.
    const t1 = Date.now();
    await sleep(1000);
    await statuses(c, 2);
    await sleep(Math.max(0, t1 + 2100 - Date.now()));
    const refused = (await statuses(c, 4)).filter((r) => r.status === 429).length;
    return violation(refused > 0, `${refused} of 4 requests refused at the start of a new fixed window`);
  },
  'rl-headers-missing-on-4xx': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments/pay_missing');
    return violation(r.status !== 404 || r.headers['x-ratelimit-limit'] === undefined, `404 without rate headers`);
  },
  'rl-remaining-negative': async (env) => {
    const { c } = await env.start({ rateLimit: 3, windowMs: 2000 });
    const min = Math.min(...(await statuses(c, 6)).map((r) => rateHeaders(r).remaining!));
    return violation(min < 0, `X-RateLimit-Remaining reached ${min}`);
  },
  'rl-reset-moves': async (env) => {
    const { c } = await env.start({ rateLimit: 10, windowMs: 3000 });
    const a = rateHeaders(await c.get('/v1/payments')).reset;
    await sleep(1100);
    const b = rateHeaders(await c.get('/v1/payments')).reset;
    return violation(a !== b, `X-RateLimit-Reset moved from ${a} to ${b} within one window`);
  },
  'rl-no-retry-after': async (env) => {
    const { c } = await env.start({ rateLimit: 2, windowMs: 2000 });
    const last = (await statuses(c, 3))[2];
    return violation(last.status !== 429 || last.headers['retry-after'] === undefined, '429 without Retry-After');
  },
  'rl-retry-after-zero': async (env) => {
    const { c } = await env.start({ rateLimit: 2, windowMs: 2000 });
    const refused = (await statuses(c, 3))[2];
    await sleep(Number(refused.headers['retry-after'] ?? 0) * 1000 + 30);
    const again = await c.get('/v1/payments');
    return violation(again.status === 429, `refused again after honouring Retry-After ${refused.headers['retry-after']}`);
  },
  'rl-shared-merchant-counter': async (env) => {
    const { s, c } = await env.start({ rateLimit: 2, windowMs: 2000 });
    await statuses(c, 3);
    const other = await client(s, KEYS.acmeLive).get('/v1/payments');
    return violation(other.status === 429, 'another key of the merchant got 429');
  },
  'rl-early-429': async (env) => {
    const { c } = await env.start({ rateLimit: 5, windowMs: 10_000 });
    const rs = await statuses(c, 5);
    const ok = rs.filter((r) => r.status === 200).length;
    return violation(ok < rateHeaders(rs[0]).limit!, `429 after ${ok} requests in a fresh window with X-RateLimit-Limit ${rateHeaders(rs[0]).limit}`);
  },
  'rl-limit-below-header': async (env) => {
    const { c } = await env.start({ rateLimit: 20, windowMs: 10_000 });
    const rs = await statuses(c, 20);
    const ok = rs.filter((r) => r.status === 200).length;
    return violation(ok < rateHeaders(rs[0]).limit!, `429 after ${ok} requests in a fresh window with X-RateLimit-Limit ${rateHeaders(rs[0]).limit}`);
  },
  'rl-window-restarts-early': async (env) => {
    const { c } = await env.start({ rateLimit: 2, windowMs: 3000 });
    const first = await c.get('/v1/payments');
    await statuses(c, 2);
    // Well inside the announced window (it resets 3 s after the first request), past a third of it.
    await sleep(1200);
    const r = await c.get('/v1/payments');
    return violation(r.status !== 429 || rateHeaders(r).reset !== rateHeaders(first).reset, `a request ${1200} ms into a full window was answered ${r.status} with X-RateLimit-Reset ${rateHeaders(r).reset} (the window announced ${rateHeaders(first).reset})`);
  },
  'rl-per-worker-counter': async (env) => {
    // Four clients of one connection each, five requests each, well inside one 10 s window of limit 5.
    const { s } = await env.start({ rateLimit: 5, windowMs: 10_000 });
    const conns = Array.from({ length: 4 }, () => new UndiciClient(s.url));
    try {
      let ok = 0;
      for (const conn of conns) {
        for (let i = 0; i < 5; i++) {
          const r = await conn.request({ method: 'GET', path: '/v1/payments?limit=1', headers: { authorization: `Bearer ${KEYS.acmeTest}` } });
          await r.body.dump();
          if (r.statusCode === 200) ok++;
        }
      }
      return violation(ok > 2 * 5, `${ok} requests of one key let through within one window length (limit 5, at most 10 across a boundary)`);
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  },
  // ------------------------------------------------------------ IDEM
  'idem-missing-key-accepted': async (env) => {
    const { c } = await env.start();
    const r = await c.create({}, { idem: null });
    return violation(r.status !== 400, `POST without Idempotency-Key answered ${r.status}`);
  },
  'idem-no-length-limit': async (env) => {
    const { c } = await env.start();
    const r = await c.create({}, { idem: 'k'.repeat(256) });
    return violation(r.status !== 400, `256-character key answered ${r.status}`);
  },
  'idem-body-ignored': async (env) => {
    const { c } = await env.start();
    const idem = freshIdem();
    await c.create({ amount: 100 }, { idem });
    const r = await c.create({ amount: 200 }, { idem });
    return violation(r.status !== 409, `different body under a used key answered ${r.status}`);
  },
  'idem-no-inflight-lock': async (env) => {
    const { c } = await env.start({ timeScale: 0.05 });
    const idem = freshIdem();
    const rs = await Promise.all(Array.from({ length: 8 }, () => c.create({}, { idem })));
    const ids = new Set(rs.filter((r) => r.status === 201).map((r) => r.json.id));
    return violation(ids.size > 1, `${ids.size} payments created under one key`);
  },
  'idem-ghost-duplicate': async (env) => {
    const { c } = await env.start({ timeScale: 0.05 });
    const idem = freshIdem();
    const description = `race ${freshIdem()}`;
    const rs = await Promise.all(Array.from({ length: 8 }, () => c.create({ description }, { idem })));
    const answered = new Set(rs.filter((r) => r.status === 201).map((r) => r.json.id));
    // The answers alone look idempotent either way; the list shows what was made.
    const listed = ((await c.get('/v1/payments?limit=100')).json.data as { id: string; description?: string }[]).filter((p) => p.description === description);
    return violation(listed.length > 1, `${listed.length} listed payments carry one request's description; the answers showed ${answered.size}`);
  },
  'idem-caches-errors': async (env) => {
    const { s, c } = await env.start();
    // A refund refused (422) while the payment waits for 3DS, retried with the same key once it has succeeded.
    const p = await threeDsRequired(c);
    const idem = freshIdem();
    const first = await c.refund(p.id, { amount: 1 }, { idem });
    await http(s.url, 'GET', `${p.nextAction!.redirectUrl}?result=success`, { key: null });
    await c.waitFor(p.id, (x) => x.status === 'succeeded');
    const again = await c.refund(p.id, { amount: 1 }, { idem });
    return violation(first.status === 422 && again.status !== 201, `the retry after a 422 answered ${again.status} instead of executing`);
  },
  'idem-global-scope': async (env) => {
    const { s, c } = await env.start();
    const idem = freshIdem();
    const a = await c.create({}, { idem });
    const b = await client(s, KEYS.globexTest).create({}, { idem });
    return violation(a.json.id === b.json.id, 'another API key got the first key\'s payment');
  },
  'idem-shared-operation-scope': async (env) => {
    const { c } = await env.start();
    const idem = freshIdem();
    await c.create({}, { idem });
    const h = await c.hosted({}, { idem });
    return violation(h.status !== 201, `hosted create with a key used by a create answered ${h.status}`);
  },
  'idem-dedupes-merchant-reference': async (env) => {
    const { c } = await env.start();
    const a = await c.create({ merchantReference: 1234567890 });
    const b = await c.create({ merchantReference: 1234567890 });
    return violation(a.json.id === b.json.id, 'two creates with one merchant_reference gave one payment');
  },
  'idem-refuses-reused-merchant-reference': async (env) => {
    const { c } = await env.start();
    await c.create({ merchantReference: 1234567891 });
    const b = await c.create({ merchantReference: 1234567891 });
    return violation(b.status === 422, `a second create with one merchant_reference answered ${b.status}`);
  },
  'idem-replay-reexecutes': async (env) => {
    const { c } = await env.start();
    const idem = freshIdem();
    const description = `replay ${freshIdem()}`;
    const a = await c.create({ description }, { idem });
    const b = await c.create({ description }, { idem });
    // The answers look idempotent either way; the list shows what was made.
    const listed = ((await c.get('/v1/payments?limit=100')).json.data as { description?: string }[]).filter((p) => p.description === description);
    return violation(b.status !== a.status || b.json?.id !== a.json?.id || listed.length > 1, `a same-body retry answered ${b.status} ${b.json?.id} (original ${a.status} ${a.json?.id}); ${listed.length} payments carry the request's description`);
  },
  'idem-in-flight-reused-code': async (env) => {
    const { c } = await env.start({ timeScale: 0.05 });
    const idem = freshIdem();
    const rs = await Promise.all(Array.from({ length: 6 }, () => c.create({ amount: 800 }, { idem })));
    const wrong = rs.filter((r) => r.status === 409 && r.json?.error?.code !== 'idempotency_key_in_use');
    return violation(wrong.length > 0, `same-body requests while the first was in flight got 409 ${wrong.map((r) => r.json?.error?.code).join(', ')}`);
  },
  // ------------------------------------------------------------ PAY
  'pay-zero-amount-accepted': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ amount: 0 });
    return violation(r.status !== 400, `amount 0 answered ${r.status}`);
  },
  'pay-param-not-named': async (env) => {
    const { c } = await env.start();
    const r = await c.post('/v1/payments', { amount: 100, card: card(), customer: {} });
    return violation(!String(r.json?.error?.param ?? '').includes('currency'), `missing currency named param ${r.json?.error?.param}`);
  },
  'pay-description-off-by-one': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ description: 'd'.repeat(500) });
    return violation(r.status === 400, `description of 500 characters answered ${r.status}`);
  },
  'pay-metadata-key-40-enforced': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ metadata: { ['k'.repeat(41)]: 'v' } });
    return violation(r.status === 400, `a 41-character metadata key answered ${r.status}`);
  },
  'pay-description-unbounded': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ description: 'd'.repeat(501) });
    return violation(r.status !== 400, `501-character description answered ${r.status}`);
  },
  'pay-amount-mutates': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 1000);
    await c.refund(id, { amount: 300 });
    const p = await settledRefunds(c, id);
    return violation(p.amount !== 1000, `amount became ${p.amount}`);
  },
  'pay-leaks-card-number': async (env) => {
    const { c } = await env.start();
    const r = await c.create();
    const got = await c.get(`/v1/payments/${r.json.id}`);
    return violation(r.text.includes(CARDS.succeeds) || got.text.includes(CARDS.succeeds), 'the full card number was returned');
  },
  'pay-next-action-stale': async (env) => {
    const { s, c } = await env.start();
    const p = await threeDsRequired(c);
    await http(s.url, 'GET', `${p.nextAction!.redirectUrl}?result=success`, { key: null });
    const done = await c.waitFor(p.id, (x) => x.status === 'succeeded');
    return violation(done.nextAction !== null, 'next_action set on a succeeded payment');
  },
  'pay-decline-code-generic': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ card: card(CARDS.insufficient_funds) });
    const p = await c.waitFor(r.json.id, (x) => x.status === 'failed');
    return violation(p.failureCode !== 'insufficient_funds', `the insufficient_funds card failed with ${p.failureCode}`);
  },
  'pay-valid-create-refused': async (env) => {
    const { c } = await env.start();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await c.create({ amount: 1000 + i, currency: 'EUR' }));
    for (let i = 0; i < 5; i++) answers.push(await c.hosted({ amount: 1000 + i, currency: 'EUR' }));
    const refused = answers.filter((r) => r.status !== 201);
    return violation(refused.length > 0, `${refused.length} of 10 valid creates refused: ${refused.map((r) => `${r.status} ${r.json?.error?.code} ${r.json?.error?.param}`).join(', ')}`);
  },
  'pay-id-not-uuid': async (env) => {
    const { c } = await env.start({ presentation: 'B' });
    const r = await c.create();
    return violation(r.status !== 201 || !/^pay_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(r.json.id), `presentation B create answered ${r.status} with id ${r.json?.id}`);
  },
  'pay-bad-json-parameter-invalid': async (env) => {
    const { c } = await env.start();
    const r = await c.post('/v1/payments', '{"amount": 1000, "currency": ');
    return violation(r.status !== 400 || r.json?.error?.code !== 'invalid_request_body', `a body that is not JSON answered ${r.status} ${r.json?.error?.code}`);
  },
  'pay-create-answers-outcome': async (env) => {
    const { c } = await env.start({ presentation: 'B' });
    const r = await c.create();
    return violation(!['pending', 'requires_action'].includes(r.json?.status), `presentation B create answered status ${r.json?.status}`);
  },
  'pay-decline-402': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ card: card(CARDS.do_not_honor) });
    const ok = r.status === 201 || (r.status === 422 && r.json?.error?.code === 'card_declined' && !!r.json?.error?.decline_code);
    return violation(!ok, `a create with the do_not_honor card answered ${r.status} ${r.json?.error?.code ?? ''}`);
  },
  'pay-refundable-before-success': async (env) => {
    const { c } = await env.start({ presentation: 'A' });
    const h = await c.hosted();
    return violation(h.json?.amount_refundable !== 0, `a ${h.json?.status} payment has amount_refundable ${h.json?.amount_refundable}`);
  },
  'pay-hosted-empty-card': async (env) => {
    const { c } = await env.start({ presentation: 'B' });
    const h = await c.hosted();
    const got = (await c.get(`/v1/payments/${h.json.id}`)).json;
    return violation(h.json?.card !== null || got?.card !== null, `a hosted payment before its page shows card ${JSON.stringify(h.json?.card)}`);
  },
  'pay-redirect-url-on-3ds': async (env) => {
    const { c } = await env.start({ presentation: 'B' });
    const p = await threeDsRequired(c);
    return violation(p.redirectUrl !== null, `a Direct API payment has redirect_url ${p.redirectUrl}`);
  },
  'pay-failed-at-on-expiry': async (env) => {
    const { c } = await env.start({ presentation: 'B', timeScale: 0.001 });
    const p = await threeDsRequired(c);
    const later = await c.waitFor(p.id, (x) => x.status === 'expired');
    return violation(later.failedAt !== null, `an expired payment has failed_at ${later.failedAt}`);
  },
  'pay-card-cleared-on-success': async (env) => {
    const { c } = await env.start();
    const id = await paid(c);
    const p = (await c.payment(id))!;
    return violation(!p.card?.last4, `a succeeded payment has card ${JSON.stringify(p.card)}`);
  },
  'pay-unknown-id-400': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments/pay_00000000-0000-4000-8000-000000000000');
    return violation(r.status !== 404 || r.json?.error?.code !== 'resource_missing', `an unknown id answered ${r.status} ${r.json?.error?.code}`);
  },
  // ------------------------------------------------------------ SM
  'sm-succeeded-to-failed': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 5000);
    await c.refund(id, { amount: SANDBOX_REFUND_FAIL_AMOUNT });
    const p = await settledRefunds(c, id);
    return violation(p.status !== 'succeeded', `a succeeded payment became ${p.status}`);
  },
  'sm-challenge-never-expires': async (env) => {
    const { c } = await env.start({ timeScale: 0.001 });
    const p = await threeDsRequired(c);
    await sleep(1500);
    const later = await c.payment(p.id);
    return violation(later!.status === 'requires_action', 'an abandoned challenge did not expire');
  },
  'sm-processor-unreachable': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ amount: 1000 });
    // The processor decides in ~3 ms at this scale: a payment still pending 400 ms later never reached it.
    await sleep(400);
    const p = r.status === 201 ? (await c.payment(r.json.id))! : null;
    return violation(r.status !== 201 || p!.status === 'pending', `create answered ${r.status}; the payment is ${p?.status ?? '-'} 400 ms later`);
  },
  'sm-hpp-3ds-skips-challenge': async (env) => {
    const { s, c } = await env.start();
    const h = await c.hosted();
    await submitHosted(s, h.json.next_action.redirect_url, CARDS.three_ds_challenge);
    const p = await c.waitFor(h.json.id, (x) => x.status !== 'requires_action' || x.nextAction?.reason === 'three_d_secure');
    return violation(p.status !== 'requires_action', `the hosted 3DS card ended ${p.status} without a challenge`);
  },
  'sm-authorized-status': async (env) => {
    const { c } = await env.start({ timeScale: 0.05 });
    const r = await c.create();
    const seen = new Set<string>([r.json.status]);
    for (let i = 0; i < 400 && !seen.has('succeeded'); i++) {
      seen.add((await c.get(`/v1/payments/${r.json.id}`)).json?.status);
      await sleep(2);
    }
    const unknown = [...seen].filter((st) => !['pending', 'requires_action', 'succeeded', 'failed', 'expired', 'canceled'].includes(st));
    return violation(unknown.length > 0, `a payment was seen with status ${unknown.join(', ')}`);
  },
  'sm-3ds-frictionless': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ card: card(CARDS.three_ds_challenge) });
    const p = await c.waitFor(r.json.id, (x) => x.status !== 'pending');
    return violation(p.status !== 'requires_action', `the 3DS card reached ${p.status} without a challenge`);
  },
  // ------------------------------------------------------------ REF
  'ref-not-listed': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 5000);
    const r = await c.refund(id, { amount: SANDBOX_REFUND_FAIL_AMOUNT });
    await sleep(150);
    const p = await c.payment(id);
    return violation(!p!.refunds!.some((x) => x.id === r.json.id), 'a failed refund is missing from refunds');
  },
  'ref-counts-pending': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 5000);
    await c.refund(id, { amount: SANDBOX_REFUND_FAIL_AMOUNT });
    const p = await settledRefunds(c, id);
    return violation(p.amountRefunded !== 0, `refunded amount ${p.amountRefunded} with no succeeded refund`);
  },
  'ref-no-lock': async (env) => {
    const { c } = await env.start({ timeScale: 0.05 });
    const id = await paid(c, 1000);
    await Promise.all(Array.from({ length: 6 }, () => c.refund(id, { amount: 400 })));
    const p = await settledRefunds(c, id);
    const total = p.refunds!.filter((r) => r.status === 'succeeded').reduce((a, r) => a + (r.amount ?? 0), 0);
    return violation(total > 1000, `succeeded refunds total ${total} on a payment of 1000`);
  },
  'ref-wrong-code': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 1000);
    const r = await c.refund(id, { amount: 1001 });
    return violation(r.status !== 422 || r.json.error.code !== 'action_not_allowed', `over-refund answered ${r.status} ${r.json?.error?.code}`);
  },
  'ref-allows-unsucceeded': async (env) => {
    const { c } = await env.start();
    const h = await c.hosted();
    const r = await c.refund(h.json.id, { amount: 100 });
    return violation(r.status !== 422, `refund of a requires_action payment answered ${r.status}`);
  },
  'ref-refunded-at-partial': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 1000);
    await c.refund(id, { amount: 100 });
    const p = await settledRefunds(c, id);
    return violation(p.refundedAt !== null, 'refunded_at set after a partial refund');
  },
  'ref-scope-per-path': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 1000);
    const idem = freshIdem();
    const a = await c.refund(id, { amount: 100 }, { idem });
    const b = await c.post('/v1/refunds', { payment_id: id, amount: 100 }, { idem });
    return violation(a.json.id !== b.json.id, 'one key on both refund paths created two refunds');
  },
  'ref-stuck-pending': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 1000);
    await c.refund(id, { amount: 100 });
    // refundSettleMs is 1 s at scale 1: 10 ms here; wait well past it.
    await sleep(300);
    const p = (await c.payment(id))!;
    return violation((p.refunds ?? []).some((r) => r.status === 'pending'), `refund still pending 300 ms after the call (settles in ~10 ms at this scale)`);
  },
  'ref-accepts-bad-amount': async (env) => {
    const { c } = await env.start();
    const id = await paid(c, 1000);
    const answers = [];
    for (const amount of [0, 'ten', 10.5]) answers.push((await c.post(`/v1/payments/${id}/refund`, { amount })).status);
    await sleep(100);
    const p = (await c.payment(id))!;
    return violation(answers.some((s) => s !== 400) || (p.amountRefunded ?? 0) !== 0, `bad refund amounts answered ${answers.join(', ')}; refunded total now ${p.amountRefunded}`);
  },
  // ------------------------------------------------------------ LIST
  'list-oldest-first': async (env) => {
    const { c } = await env.start();
    const ids = await createMany(c, 3);
    const got = (await c.get('/v1/payments')).json.data.map((p: any) => p.id);
    return violation(got.join() !== ids.reverse().join(), 'the list is not newest first');
  },
  'list-limit-unchecked': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments?limit=0');
    return violation(r.status !== 400, `limit=0 answered ${r.status}`);
  },
  'list-unknown-cursor-ok': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments?starting_after=pay_00000000-0000-4000-8000-000000000000');
    return violation(r.status !== 400, `an unknown cursor answered ${r.status}`);
  },
  'list-cursor-skip': async (env) => {
    const { c } = await env.start();
    await createMany(c, 5);
    const seen = await walk(c, '', 2);
    return violation(seen.length !== 5, `a cursor walk saw ${seen.length} of 5 payments`);
  },
  'list-gte-exclusive': async (env) => {
    const { c } = await env.start();
    const r = await c.create();
    const got = (await c.get(`/v1/payments?created[gte]=${r.json.created}`)).json.data.map((p: any) => p.id);
    return violation(!got.includes(r.json.id), 'created[gte] excluded a payment created at that second');
  },
  'list-filter-after-page': async (env) => {
    const { c } = await env.start();
    const failed = await createMany(c, 3, { card: card(CARDS.do_not_honor) });
    const ok = await createMany(c, 3);
    for (const id of [...failed, ...ok]) await c.waitFor(id, (p) => p.status !== 'pending');
    const seen = await walk(c, '&status=failed', 3);
    return violation(seen.length !== 3, `a filtered walk found ${seen.length} of 3 failed payments`);
  },
  'list-leaks-live': async (env) => {
    const { s, c } = await env.start();
    const l = await client(s, KEYS.acmeLive).create({ card: live });
    const got = (await c.get('/v1/payments')).json.data.map((p: any) => p.id);
    return violation(got.includes(l.json.id), 'a live payment in the test list');
  },
  'list-url-doubled-prefix': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments');
    return violation(r.json?.url !== '/v1/payments', `list url ${r.json?.url}`);
  },
  'list-unknown-status-ignored': async (env) => {
    const { c } = await env.start();
    await c.create();
    const r = await c.get('/v1/payments?status=bogus');
    return violation(r.status !== 400, `status=bogus answered ${r.status}`);
  },
  // ------------------------------------------------------------ WH
  'wh-bad-signature': async (env) => {
    const rx = await env.receiver();
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    await c.create();
    const d = await until(() => rx.deliveries[0]);
    const v = verifySignature(DEFAULT_WEBHOOK_SECRET, d.raw, d.headers[SIGNATURE_HEADER] as string).verdict;
    return violation(v !== 'ok', `signature verdict ${v}`);
  },
  'wh-timestamp-ms': async (env) => {
    const rx = await env.receiver();
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    await c.create();
    const d = await until(() => rx.deliveries[0]);
    const v = verifySignature(DEFAULT_WEBHOOK_SECRET, d.raw, d.headers[SIGNATURE_HEADER] as string).verdict;
    return violation(v !== 'ok', `signature verdict ${v}`);
  },
  'wh-missing-failed-event': async (env) => {
    const rx = await env.receiver();
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    const r = await c.create({ card: card(CARDS.do_not_honor) });
    await c.waitFor(r.json.id, (p) => p.status === 'failed');
    await sleep(150);
    return violation(!rx.deliveries.some((d) => d.body.type === 'payment.failed' && isPaymentEvent(d, r.json.id)), 'no payment.failed event');
  },
  'wh-refund-event-missing-payment-id': async (env) => {
    const rx = await env.receiver();
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    const id = await paid(c);
    await c.refund(id, { amount: 10 });
    const d = await until(() => rx.deliveries.find((x) => x.body.type === 'refund.succeeded'));
    return violation(d.body.data.refund.payment_id !== id, 'refund event without payment_id');
  },
  'wh-event-on-pending': async (env) => {
    const rx = await env.receiver();
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    await threeDsRequired(c);
    await sleep(150);
    const bad = rx.deliveries.filter((d) => !(EVENT_TYPES as readonly string[]).includes(d.body.type) || ['pending', 'requires_action'].includes(d.body.data?.payment?.status));
    return violation(bad.length > 0, `events for non-terminal statuses: ${bad.map((d) => d.body.type).join(', ')}`);
  },
  'wh-stale-payment': async (env) => {
    const rx = await env.receiver();
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    await c.create();
    const d = await until(() => rx.deliveries.find((x) => x.body.type === 'payment.succeeded'));
    const status = normalizePayment(d.body.data.payment)?.status;
    return violation(status !== 'succeeded', `payment.succeeded carried status ${status}`);
  },
  'wh-new-id-on-retry': async (env) => {
    const rx = await env.receiver((n) => (n === 0 ? 500 : 200));
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    await c.create();
    await until(() => rx.deliveries.length >= 2);
    return violation(rx.deliveries[0].body.id !== rx.deliveries[1].body.id, 'a retry carried a new event id');
  },
  'wh-no-retry': async (env) => {
    const rx = await env.receiver((n) => (n === 0 ? 500 : 200));
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    await c.create();
    await until(() => rx.deliveries.length >= 1);
    await sleep(400);
    return violation(rx.deliveries.length < 2, 'a failed delivery was not retried');
  },
  'wh-retry-fixed-interval': async (env) => {
    // Three failed attempts, then 200: backoff 200, 400, 800 ms when it grows, 200 ms each when fixed.
    const rx = await env.receiver((n) => (n < 3 ? 500 : 200));
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }], webhookRetryBaseMs: 200 });
    await c.create();
    await until(() => rx.deliveries.length >= 4);
    const gaps = [1, 2, 3].map((i) => rx.deliveries[i].at - rx.deliveries[i - 1].at);
    return violation(gaps[2] < gaps[0] + 300, `retries came at intervals ${gaps.map((g) => Math.round(g)).join(', ')} ms: they do not grow`);
  },
  'wh-live-to-test-endpoint': async (env) => {
    const testRx = await env.receiver();
    const liveRx = await env.receiver();
    const { s } = await env.start({ webhookUrls: [{ merchant: 'acme', mode: 'test', url: testRx.url }, { merchant: 'acme', mode: 'live', url: liveRx.url }] });
    await client(s, KEYS.acmeLive).create({ card: live });
    await until(() => liveRx.deliveries.length >= 1);
    await sleep(100);
    return violation(testRx.deliveries.some((d) => d.body.livemode === true), 'a live event reached the test endpoint');
  },
  'wh-created-at-iso': async (env) => {
    const rx = await env.receiver();
    const { c } = await env.start({ webhookUrls: [{ url: rx.url }] });
    await c.create();
    const d = await until(() => rx.deliveries[0]);
    return violation(!Number.isInteger(d.body.created_at), `created_at ${JSON.stringify(d.body.created_at)}`);
  },
  // ------------------------------------------------------------ ERR
  'err-missing-request-id': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments/pay_missing');
    return violation(!String(r.json.error.request_id ?? '').startsWith('req_'), 'error without request_id');
  },
  'err-wrong-type': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments/pay_missing');
    return violation(r.json.error.type !== 'invalid_request_error', `resource_missing with type ${r.json.error.type}`);
  },
  'err-card-error-code': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ card: card('4242424242424241') });
    return violation(r.json.error.type === 'card_error' && r.json.error.code !== 'card_declined', `card_error with code ${r.json.error.code}`);
  },
  'err-500-as-502': async (env) => {
    const { c } = await env.start({ upstreamUrl: `http://127.0.0.1:${await env.closedPort()}`, upstreamBacklogLimit: 1 });
    let r = await c.create();
    for (let i = 0; i < 50 && r.status === 201; i++) r = await c.create();
    return violation(![500, 503].includes(r.status), `a 5xx answered ${r.status} ${r.json?.error?.code}`);
  },
  'err-text-plain': async (env) => {
    const { c } = await env.start();
    const r = await c.get('/v1/payments/pay_missing');
    return violation(r.headers['content-type'] !== 'application/json', `error with Content-Type ${r.headers['content-type']}`);
  },
  // ------------------------------------------------------------ AUTH
  'auth-accepts-basic': async (env) => {
    const { s } = await env.start();
    const r = await http(s.url, 'GET', '/v1/payments', { authorization: `Basic ${KEYS.acmeTest}` });
    return violation(r.status !== 401, `Basic scheme answered ${r.status}`);
  },
  'auth-ratelimit-headers-on-401': async (env) => {
    const { s } = await env.start();
    const r = await http(s.url, 'GET', '/v1/payments', { key: 'svc_test_sk_unknownKey000000000000000000' });
    return violation(r.headers['x-ratelimit-limit'] !== undefined, '401 with rate headers');
  },
  'auth-live-accepts-test-card': async (env) => {
    const { s } = await env.start();
    const lc = client(s, KEYS.acmeLive);
    const r = await lc.create();
    if (r.status !== 201) return null;
    const p = await lc.waitFor(r.json.id, (x) => x.status !== 'pending');
    return violation(p.status === 'succeeded', 'a live key succeeded with a test card');
  },
  'auth-live-sees-test': async (env) => {
    const { s, c } = await env.start();
    const r = await c.create();
    const got = await client(s, KEYS.acmeLive).get(`/v1/payments/${r.json.id}`);
    return violation(got.status !== 404, `a live key read a test payment (${got.status})`);
  },
  'auth-bad-prefix-400': async (env) => {
    const { s } = await env.start();
    const r = await http(s.url, 'GET', '/v1/payments', { key: 'xyz_test_sk_0123456789abcdef01234567' });
    return violation(r.status !== 401 || r.json?.error?.code !== 'invalid_api_key', `a key with no known prefix answered ${r.status} ${r.json?.error?.code}`);
  },
  'auth-unknown-key-403': async (env) => {
    const { s } = await env.start();
    const r = await http(s.url, 'GET', '/v1/payments', { key: 'svc_test_sk_0123456789abcdef01234567' });
    return violation(r.status !== 401 || r.json?.error?.code !== 'invalid_api_key', `a well-formed unknown key answered ${r.status} ${r.json?.error?.code}`);
  },
  'auth-create-livemode-false': async (env) => {
    const { s, c } = await env.start();
    const l = client(s, KEYS.acmeLive);
    const answers = [await l.create({ card: live }), await l.hosted(), await c.create()];
    const modes = answers.map((r) => r.json?.livemode);
    return violation(modes.join() !== 'true,true,false', `create answers said livemode ${modes.join(', ')} (live, live hosted, test)`);
  },
  // ------------------------------------------------------------ TEST
  'test-decline-422': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ card: card(CARDS.do_not_honor) });
    return violation(r.status !== 201, `a sandbox decline card answered ${r.status}`);
  },
  'test-amex-cvc-rejected': async (env) => {
    const { c } = await env.start();
    const r = await c.create({ card: { number: '378282246310005', exp_month: 12, exp_year: 2099, cvc: '1234', holder_name: 'x' } });
    return violation(r.status !== 201, `an Amex card with a 4-digit CVC answered ${r.status}`);
  },
  'test-hpp-requires-3ds': async (env) => {
    const { s, c } = await env.start();
    const h = await c.hosted();
    await submitHosted(s, h.json.next_action.redirect_url, CARDS.succeeds);
    const p = await c.waitFor(h.json.id, (x) => x.status !== 'requires_action' && x.status !== 'pending');
    return violation(p.status !== 'succeeded', `the success card on the hosted page ended ${p.status} ${p.failureCode ?? ''}`);
  },
  // ------------------------------------------------------------ FT
  'ft-lose-payment-on-upstream-error': async (env) => {
    const { c } = await env.start({ upstreamUrl: `http://127.0.0.1:${await env.closedPort()}` });
    const r = await c.create();
    await sleep(50);
    const got = await c.get(`/v1/payments/${r.json.id}`);
    return violation(r.status === 201 && got.status !== 200, `a payment answered 201 is gone (${got.status})`);
  },
  'ft-500-on-upstream-error': async (env) => {
    const { c } = await env.start({ upstreamUrl: `http://127.0.0.1:${await env.closedPort()}` });
    const r = await c.create();
    const ok = (r.status === 201 && r.json?.status === 'pending') || (r.status === 503 && r.json?.error?.code === 'service_unavailable');
    return violation(!ok, `a create while the processor is unreachable answered ${r.status} ${r.json?.error?.code ?? r.json?.status}`);
  },
  'ft-no-retry-after-outage': async (env) => {
    const proc = await startProcessor({ timeScale: 0.01 });
    try {
      const proxy = await env.proxy(proc.port);
      const { c } = await env.start({ upstreamUrl: proxy.url });
      proxy.set('reset');
      const r = await c.create();
      await sleep(100);
      proxy.set('pass');
      await sleep(1500);
      const p = await c.payment(r.json.id);
      return violation(p!.status === 'pending', 'a payment stayed pending after the processor came back');
    } finally {
      await proc.close();
    }
  },
  'ft-503-after-store': async (env) => {
    // The processor is down: a create and its retry under one key must leave one payment.
    const { c } = await env.start({ upstreamUrl: `http://127.0.0.1:${await env.closedPort()}` });
    const idem = freshIdem();
    const description = `retry ${freshIdem()}`;
    const a = await c.create({ description }, { idem });
    const b = await c.create({ description }, { idem });
    const listed = ((await c.get('/v1/payments?limit=100')).json.data as { description?: string }[]).filter((p) => p.description === description);
    return violation(listed.length > 1, `a create (${a.status}) and its retry (${b.status}) under one key left ${listed.length} payments`);
  },
  'ft-auth-503-during-outage': async (env) => {
    const { s, c } = await env.start({ upstreamUrl: `http://127.0.0.1:${await env.closedPort()}` });
    await c.create();
    await sleep(50);
    const r = await http(s.url, 'GET', '/v1/payments', { key: null });
    return violation(r.status !== 401 || r.json?.error?.code !== 'invalid_api_key', `while the processor was down, a request without a key answered ${r.status} ${r.json?.error?.code}`);
  },
  // ------------------------------------------------------------ SEC
  'sec-cross-merchant-read': async (env) => {
    const { s, c } = await env.start();
    const r = await c.create();
    const got = await client(s, KEYS.globexTest).get(`/v1/payments/${r.json.id}`);
    return violation(got.status !== 404, `another merchant read the payment (${got.status})`);
  },
  'sec-cross-merchant-refund-500': async (env) => {
    const { s, c } = await env.start();
    const id = await paid(c);
    const foreign = await client(s, KEYS.globexTest).refund(id, { amount: 100 });
    const refunds = (await c.payment(id))?.refunds?.length ?? 0;
    return violation(foreign.status !== 404 || refunds > 0, `another merchant's refund was answered ${foreign.status} and the payment shows ${refunds} refund(s)`);
  },
  'sec-key-in-error': async (env) => {
    const { s } = await env.start();
    const key = 'svc_test_sk_unknownKey000000000000000000';
    const r = await http(s.url, 'GET', '/v1/payments', { key });
    return violation(r.text.includes(key), 'the 401 echoed the API key');
  },
};
