import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeList } from '../../src/spec/index.ts';
import type { RunningService } from '../../src/target/index.ts';
import { CARDS, KEYS, card, client, closeAll, sleep, start, type Client } from './helpers.ts';

afterAll(closeAll);

async function walk(c: Client, query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (let i = 0; i < 200; i++) {
    const r = await c.get(`/v1/payments?limit=${limit}${query}${after ? `&starting_after=${after}` : ''}`);
    expect(r.status).toBe(200);
    const page = normalizeList(r.json)!;
    ids.push(...page.ids);
    if (!page.hasMore) return ids;
    after = page.ids[page.ids.length - 1];
  }
  throw new Error('walk did not end');
}

describe('listing (LIST)', () => {
  let s: RunningService;
  let c: Client;
  const created: string[] = [];
  beforeAll(async () => {
    s = await start({ rateLimit: 100_000 });
    c = client(s, KEYS.globexTest);
    for (let i = 0; i < 12; i++) {
      const r = await c.create({ amount: 100 + i, card: card(i % 3 === 0 ? CARDS.do_not_honor : CARDS.succeeds) });
      created.push(r.json.id);
    }
    for (const id of created) await c.waitFor(id, (p) => p.status !== 'pending');
  });

  it('LIST-1/2/3: list object, newest first, default limit 10', async () => {
    const r = await c.get('/v1/payments');
    expect(r.json).toMatchObject({ object: 'list', has_more: true, url: '/v1/payments' });
    expect(r.json.data.map((p: any) => p.id)).toEqual(created.slice().reverse().slice(0, 10));
    expect((await c.get('/v1/payments?limit=100')).json.data).toHaveLength(12);
    expect((await c.get('/v1/payments?limit=1')).json.data).toHaveLength(1);
  });

  it('LIST-5: a cursor walk yields each payment once, also while new payments are created', async () => {
    expect(await walk(c, '', 5)).toEqual(created.slice().reverse());
    const ids: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 50; i++) {
      const r = await c.get(`/v1/payments?limit=4${after ? `&starting_after=${after}` : ''}`);
      ids.push(...r.json.data.map((p: any) => p.id));
      await c.create({ amount: 1 });
      if (!r.json.has_more) break;
      after = ids[ids.length - 1];
    }
    expect(ids).toEqual(created.slice().reverse());
  });

  it('LIST-6/8: status filter before pagination, has_more false only at the end', async () => {
    const failed = created.filter((_, i) => i % 3 === 0).reverse();
    expect(await walk(c, '&status=failed', 1)).toEqual(failed);
    const first = await c.get('/v1/payments?status=failed&limit=4');
    expect(first.json.data.map((p: any) => p.id)).toEqual(failed);
    expect(first.json.has_more).toBe(false);
    expect((await c.get('/v1/payments?status=expired')).json.data).toEqual([]);
  });

  it('LIST-7: created[gte] inclusive, created[lt] exclusive', async () => {
    const s2 = await start({ rateLimit: 100_000 });
    const c2 = client(s2, KEYS.acmeTest);
    const a = (await c2.create()).json;
    await sleep(1100 - (Date.now() % 1000));
    const b = (await c2.create()).json;
    const ta = a.created;
    const tb = b.created;
    expect(tb).toBeGreaterThan(ta);
    const ids = async (q: string) => (await c2.get(`/v1/payments?${q}`)).json.data.map((p: any) => p.id);
    expect(await ids(`created[gte]=${ta}`)).toEqual([b.id, a.id]);
    expect(await ids(`created[gte]=${tb}`)).toEqual([b.id]);
    expect(await ids(`created[lt]=${tb}`)).toEqual([a.id]);
    expect(await ids(`created[lt]=${ta}`)).toEqual([]);
    expect(await ids(`created[gte]=${ta}&created[lt]=${tb}`)).toEqual([a.id]);
  });

  it('LIST-4 / LIST-9: an unknown cursor or one of another mode gives 400; test and live lists are apart', async () => {
    const live = client(s, KEYS.globexLive);
    const l = await live.create({ card: { number: '5555555555554444', exp_month: 12, exp_year: 2099, cvc: '123', holder_name: 'x' } });
    expect((await live.get('/v1/payments')).json.data.map((p: any) => p.id)).toEqual([l.json.id]);
    expect((await c.get('/v1/payments?limit=100')).json.data.map((p: any) => p.id)).not.toContain(l.json.id);
    const r = await c.get(`/v1/payments?starting_after=${l.json.id}`);
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 'parameter_invalid', param: 'starting_after' });
  });
});
