/**
 * lists: listing payments.
 * - Seeds payments over at least two distinct creation seconds.
 * - `list-walk-<n>`: walks every page by cursor (small pages, bounded to the scenario's own
 *   creation period with `created[gte]`) while creates keep running on the same key: every
 *   payment that existed when the walk started appears exactly once.
 * - Each `status` filter (also on 2-item pages, LIST-8), an unknown status, `created[gte]` (inclusive) / `created[lt]`
 *   (exclusive) around a known payment's second, the default page size, limit 1 and 100, limits
 *   out of range, an unknown cursor.
 * - Isolation: a live key's list never shows test payments and the reverse; a live payment
 *   cannot be retrieved or refunded with a test key nor a test one with a live key; another
 *   merchant's key cannot read, list or refund the payment (404 `resource_missing`).
 */
import { ServerTime } from './lib/server-time.ts';
import type { ExchangeResult, Scenario, ScenarioContext } from '../src/spec/scenario.ts';
import { LIMITS } from '../src/spec/limits.ts';
import { LIST_STATUS_FILTER } from '../src/spec/statuses.ts';
import { api, cardFor, nap, paymentInput, poll, pool, step, unknownPaymentId, type Api } from './lib/common.ts';
import type { CardOutcome } from '../src/spec/cards.ts';
import { liveKeyFor, loadKeys, otherMerchantKey } from './lib/keys.ts';
import { declareRules } from './lib/rules.ts';

const { rules, rulesFor } = declareRules(
  ['LIST-1', 'LIST-2', 'LIST-3', 'LIST-4', 'LIST-5', 'LIST-6', 'LIST-7', 'LIST-8', 'ERR-1', 'ERR-2'],
  [
    { rules: ['LIST-9', 'AUTH-8', 'AUTH-5'], live: true },
    { rules: ['SEC-1'], twoMerchants: true },
  ],
);

/** Payments seeded for the walk: enough for several pages and more than the default page size. */
const SEED = 14;
const WALK_PAGE = 4;

async function seed(ctx: ScenarioContext, a: Api, n: number): Promise<string[]> {
  const outcomes: CardOutcome[] = ['succeeds', 'do_not_honor', 'succeeds', 'insufficient_funds'];
  return (
    await pool(ctx, Array.from({ length: n }), 4, async (_, i) => {
      const outcome = outcomes[i % outcomes.length];
      const card = cardFor(ctx, outcome) ?? cardFor(ctx, 'succeeds');
      const r = card ? await a.create(paymentInput(ctx, card), { cardOutcome: card.number === ctx.cards[outcome] ? outcome : 'succeeds' }) : await a.createHosted(paymentInput(ctx, null));
      return r.payment?.id;
    })
  ).filter((x): x is string => !!x);
}

/** Walks all pages by cursor; bounded in pages. */
async function walk(ctx: ScenarioContext, a: Api, params: { limit: number; 'created[gte]'?: number; 'created[lt]'?: number; status?: string }, group: string, maxPages: number): Promise<{ ids: string[]; complete: boolean }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages && !ctx.signal.aborted; page++) {
    const r = await a.list({ ...params, ...(cursor ? { starting_after: cursor } : {}) }, { group });
    if (r.status !== 200 || !r.record.list) return { ids, complete: false };
    ids.push(...r.record.list.ids);
    if (!r.record.list.hasMore) return { ids, complete: true };
    const last = r.record.list.ids[r.record.list.ids.length - 1];
    if (!last) return { ids, complete: false };
    cursor = last;
  }
  return { ids, complete: false };
}

async function run(ctx: ScenarioContext): Promise<void> {
  const keys = loadKeys(ctx);
  if (keys.length === 0) return ctx.log('lists: no test key; skipping');
  const a = api(ctx, keys[0]);
  // created bounds are the server's Unix seconds: taken from its clock (Date headers), not ours.
  const serverTime = new ServerTime().learn((await a.list({ limit: 1 }, { group: 'list-server-time' })).record);
  const startSec = serverTime.seconds() - 1 - Math.ceil(serverTime.uncertaintyMs / 1000);

  // Seed over two creation seconds.
  const first = await seed(ctx, a, Math.ceil(SEED / 2));
  await nap(ctx, 1000 - ((Date.now() + serverTime.offsetMs) % 1000) + 20);
  const second = await seed(ctx, a, SEED - first.length);
  const seeded = [...first, ...second];
  if (seeded.length === 0) return ctx.log('lists: could not seed payments');

  // Cursor walks while creates run on the same key.
  for (let n = 1; n <= 2 && !ctx.signal.aborted; n++) {
    await step(ctx, `walk ${n}`, async () => {
      let walking = true;
      const creator = (async () => {
        for (let i = 0; walking && i < 20 && !ctx.signal.aborted; i++) {
          const card = cardFor(ctx, 'succeeds');
          if (card) await a.create(paymentInput(ctx, card), { cardOutcome: 'succeeds', group: `list-walk-${n}-creates` });
          else await a.createHosted(paymentInput(ctx, null), { group: `list-walk-${n}-creates` });
        }
      })();
      // Bounded to the payments created since the scenario started (other scenarios may share the key).
      const maxPages = 150;
      const until = serverTime.seconds() + 1 + Math.ceil(serverTime.uncertaintyMs / 1000);
      const w = await walk(ctx, a, { limit: WALK_PAGE, 'created[gte]': startSec, 'created[lt]': until }, `list-walk-${n}`, maxPages).finally(() => {
        walking = false;
      });
      await creator;
      const missing = seeded.filter((id) => !w.ids.includes(id));
      const dupes = w.ids.length - new Set(w.ids).size;
      ctx.log(`lists: walk ${n}: ${w.ids.length} ids over ${w.complete ? 'all' : 'some'} pages, ${missing.length} seeded missing, ${dupes} duplicate(s)`);
    });
  }

  // Each status filter (with the walk's bound), and an unknown status.
  await step(ctx, 'status filters', async () => {
    for (const status of LIST_STATUS_FILTER) await a.list({ status, limit: LIMITS.pageLimitMax, 'created[gte]': startSec }, { group: 'list-filter-status' });
    await a.list({ status: 'bogus_status' }, { group: 'list-filter-status' });
    // Short pages (LIST-8): the newest payments are the walks' succeeded ones, so a status
    // filter applied after slicing a 2-item page would come back short with has_more false
    // while older failed payments match.
    for (const status of ['failed', 'succeeded']) await a.list({ status, limit: 2, 'created[gte]': startSec }, { group: 'list-filter-short-page' });
  });

  // created[gte] / created[lt] around a known payment's second.
  await step(ctx, 'created bounds', async () => {
    const r = await a.retrieve(second[0] ?? seeded[0]);
    const t = r.payment?.created;
    if (typeof t !== 'number') return;
    const g = 'list-created';
    await a.list({ 'created[gte]': t, limit: LIMITS.pageLimitMax }, { group: g });
    await a.list({ 'created[lt]': t, 'created[gte]': startSec, limit: LIMITS.pageLimitMax }, { group: g });
    await a.list({ 'created[gte]': t, 'created[lt]': t + 1, limit: LIMITS.pageLimitMax }, { group: g });
    await a.list({ 'created[gte]': t + 1, limit: LIMITS.pageLimitMax }, { group: g });
    await a.list({ 'created[gte]': 'yesterday' }, { group: g });
  });

  // Page sizes: default, bounds, out of range; an unknown cursor.
  await step(ctx, 'limits and cursor', async () => {
    const g = 'list-limit';
    await a.list({ 'created[gte]': startSec }, { group: g });
    await a.list({ limit: LIMITS.pageLimitMin }, { group: g });
    await a.list({ limit: LIMITS.pageLimitMax }, { group: g });
    for (const limit of [LIMITS.pageLimitMin - 1, LIMITS.pageLimitMax + 1, -1, 'ten']) await a.list({ limit }, { group: g });
    await a.list({ starting_after: unknownPaymentId() }, { group: 'list-cursor' });
  });

  // Test/live isolation: lists, retrieve, refund (live key: read-only and a single hosted payment).
  const live = liveKeyFor(ctx, keys[0]);
  if (live) {
    await step(ctx, 'test/live isolation', async () => {
      const l = api(ctx, live);
      const g = 'list-isolation-live';
      const lp = await l.createHosted(paymentInput(ctx, null), { group: g });
      await l.list({ limit: LIMITS.pageLimitMax }, { group: g });
      await a.list({ limit: LIMITS.pageLimitMax }, { group: g });
      if (lp.payment) {
        await a.retrieve(lp.payment.id, { group: g });
        await a.refund(lp.payment.id, { amount: 100 }, { group: g });
        await l.retrieve(lp.payment.id, { group: g });
      }
      await l.retrieve(seeded[0], { group: g });
      await l.refund(seeded[0], { amount: 100 }, { group: g });
    });
  }

  // Merchant isolation.
  const other = otherMerchantKey(ctx, keys[0]);
  if (other) {
    await step(ctx, 'merchant isolation', async () => {
      const o = api(ctx, other);
      const g = 'list-isolation-merchant';
      await o.retrieve(seeded[0], { group: g });
      await o.refund(seeded[0], { amount: 100 }, { group: g });
      await o.refund(seeded[0], { amount: 100 }, { group: g, path: 'refunds' });
      await o.list({ limit: LIMITS.pageLimitMax, 'created[gte]': startSec }, { group: g });
    });
  }

  // Let the seeded payments settle: with the succeeding card every seed is a Direct API payment.
  // Without it some or all are hosted, waiting on their page for ever: polling them would only
  // spend the settle wait on each (two minutes of GETs against a plan of seconds).
  if (cardFor(ctx, 'succeeds')) await pool(ctx, seeded, 4, (id) => poll(ctx, a, id));
}

/** Whether a list exchange came back as a page. */
export function isPage(r: ExchangeResult): boolean {
  return r.status === 200 && !!r.record.list;
}

const scenario: Scenario = {
  name: 'lists',
  description: 'Cursor walks while creates run, each filter, created bounds, page-size bounds, unknown cursor, test/live and merchant isolation on list, retrieve and refund',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01'],
  defaultSuite: true,
  run,
};
export default scenario;
