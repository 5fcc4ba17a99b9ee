/**
 * Variants of the reference service for open choices of the spec (src/target/variants.ts):
 * the create answering an outcome already known (sync-create-outcome-a/-b), short list pages
 * (short-list-pages), duplicated webhook deliveries (webhook-at-least-once), another rate limit
 * (rate-limit-configured) and PROCESSING for an unknown outcome (processing-status-a). Each test
 * shows the variant really does what it claims, against the default where that differs, so a
 * variant cannot silently be a no-op.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { variantByName } from '../../src/target/index.ts';
import type { ServiceOptions } from '../../src/target/index.ts';
import { CARDS, KEYS, card, client, closeAll, http, rateHeaders, sleep, start, startReceiver } from './helpers.ts';

afterAll(closeAll);

const opts = (name: string): Partial<ServiceOptions> => {
  const v = variantByName(name);
  if (!v) throw new Error(`no variant ${name}`);
  return v.options;
};

// At this scale the 3DS challenge appears after 200 ms, past the default create wait (50 ms floor).
const SCALE = 0.1;
// The sync-create variants at this scale: the challenge appears after 400 ms, past the default
// create wait (100 ms) and well within the variant's wait (900 ms), also on a busy host.
const SYNC_SCALE = 0.2;

describe('sync-create-outcome', () => {
  it('default presentation A: the 3DS card answers PENDING (the challenge comes after the create wait)', async () => {
    const c = client(await start({ timeScale: SYNC_SCALE, rateLimit: 100_000, presentation: 'A' }), KEYS.acmeTest);
    const r = await c.create({ card: card(CARDS.three_ds_challenge) });
    expect(r.status).toBe(201);
    expect(r.json.status).toBe('PENDING');
    expect(r.json.next_action).toBeNull();
  });

  it('sync-create-outcome-a: SUCCEEDED for the succeeding card, REQUIRES_ACTION with next_action for the 3DS card, PENDING for a decline card', async () => {
    const c = client(await start({ timeScale: SYNC_SCALE, rateLimit: 100_000, ...opts('sync-create-outcome-a') }), KEYS.acmeTest);
    const ok = await c.create();
    expect(ok.status).toBe(201);
    expect(ok.json.status).toBe('SUCCEEDED');
    const tds = await c.create({ card: card(CARDS.three_ds_challenge) });
    expect(tds.status).toBe(201);
    expect(tds.json.status).toBe('REQUIRES_ACTION');
    expect(tds.json.next_action).toMatchObject({ type: 'redirect', reason: 'three_d_secure' });
    expect(typeof tds.json.next_action.redirect_url).toBe('string');
    const dnh = await c.create({ card: card(CARDS.do_not_honor) });
    expect(dnh.status).toBe(201);
    expect(dnh.json.status).toBe('PENDING');
    const failed = await c.waitFor(dnh.json.id, (p) => p.status === 'failed');
    expect(failed.failureCode).toBe('do_not_honor');
  });

  it('sync-create-outcome-b: requires_action with next_action for the 3DS card; pending for every other card', async () => {
    const c = client(await start({ timeScale: SYNC_SCALE, rateLimit: 100_000, ...opts('sync-create-outcome-b') }), KEYS.acmeTest);
    const tds = await c.create({ card: card(CARDS.three_ds_challenge) });
    expect(tds.json.status).toBe('requires_action');
    expect(tds.json.next_action).toMatchObject({ type: 'redirect' });
    expect(typeof tds.json.next_action.redirect_url).toBe('string');
    const ok = await c.create();
    expect(ok.json.status).toBe('pending');
    expect(ok.json.next_action).toBeNull();
    await c.waitFor(ok.json.id, (p) => p.status === 'succeeded');
    const dnh = await c.create({ card: card(CARDS.insufficient_funds) });
    expect(dnh.json.status).toBe('pending');
    expect((await c.waitFor(dnh.json.id, (p) => p.status === 'failed')).failureCode).toBe('insufficient_funds');
  });
});

describe('short-list-pages', () => {
  it('a page holds at most half of limit with has_more true; a cursor walk still yields every payment once', async () => {
    const svc = await start({ rateLimit: 100_000, ...opts('short-list-pages') });
    const c = client(svc, KEYS.globexTest);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await c.create({ amount: 100 + i })).json.id);
    const first = await c.get('/v1/payments?limit=4');
    expect(first.status).toBe(200);
    expect(first.json.data.length).toBe(2);
    expect(first.json.has_more).toBe(true);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 20; guard++) {
      const page: { json: { data: { id: string }[]; has_more: boolean } } = await c.get(`/v1/payments?limit=4${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(page.json.data.length).toBeGreaterThanOrEqual(1);
      expect(page.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.data.map((p) => p.id));
      if (!page.json.has_more) break;
      cursor = page.json.data[page.json.data.length - 1].id;
    }
    expect(seen).toEqual([...ids].reverse());
    // limit 1 still gives one item per page.
    expect((await c.get('/v1/payments?limit=1')).json.data.length).toBe(1);
  });

  it('default: a page holds limit items', async () => {
    const c = client(await start({ rateLimit: 100_000 }), KEYS.globexTest);
    for (let i = 0; i < 5; i++) await c.create({ amount: 100 + i });
    const page = await c.get('/v1/payments?limit=4');
    expect(page.json.data.length).toBe(4);
    expect(page.json.has_more).toBe(true);
  });
});

describe('webhook-at-least-once', () => {
  it('every event is delivered twice with the same event id', async () => {
    const rx = await startReceiver();
    try {
      const c = client(await start({ rateLimit: 100_000, webhookUrls: [{ url: rx.url }], ...opts('webhook-at-least-once') }), KEYS.acmeTest);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await c.create({ amount: 200 + i })).json.id);
      for (const id of ids) await c.waitFor(id, (p) => p.status === 'succeeded');
      const deadline = Date.now() + 5_000;
      while (rx.deliveries.length < 2 * ids.length && Date.now() < deadline) await sleep(20);
      await sleep(100);
      const byEvent = new Map<string, number>();
      for (const d of rx.deliveries) byEvent.set(d.body.id, (byEvent.get(d.body.id) ?? 0) + 1);
      expect(byEvent.size).toBe(ids.length);
      expect([...byEvent.values()]).toEqual(ids.map(() => 2));
      expect(new Set(rx.deliveries.map((d) => d.body.data.payment.id))).toEqual(new Set(ids));
    } finally {
      await rx.close();
    }
  });
});

describe('rate-limit-configured', () => {
  it('X-RateLimit-Limit shows the configured limit, and the window admits that many', async () => {
    const v = opts('rate-limit-configured');
    expect(v.rateLimit).toBeDefined();
    expect(v.rateLimit).not.toBe(120);
    const svc = await start({ ...v, windowMs: 60_000 });
    const get = () => http(svc.url, 'GET', '/v1/payments?limit=1', { key: KEYS.globexTestApi });
    const first = await get();
    expect(rateHeaders(first).limit).toBe(v.rateLimit);
    for (let i = 1; i < v.rateLimit!; i++) expect((await get()).status).toBe(200);
    const over = await get();
    expect(over.status).toBe(429);
  });
});

describe('processing-status-a', () => {
  it('presentation A answers PROCESSING (not PENDING) while the outcome is unknown; status=pending lists it', async () => {
    const c = client(await start({ timeScale: SCALE, rateLimit: 100_000, ...opts('processing-status-a') }), KEYS.acmeTest);
    const r = await c.create({ card: card(CARDS.three_ds_challenge) });
    expect(r.status).toBe(201);
    expect(r.json.status).toBe('PROCESSING');
    const got = await c.get(`/v1/payments/${r.json.id}`);
    expect(got.json.status).toBe('PROCESSING');
    const listed = await c.get('/v1/payments?status=pending');
    expect(listed.json.data.map((p: { id: string }) => p.id)).toContain(r.json.id);
    await c.waitFor(r.json.id, (p) => p.status === 'requires_action');
  });
});
