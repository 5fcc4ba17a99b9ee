/**
 * The challenge-expires-fast variant (a 3DS challenge that times out before a poll can see
 * requires_action) and the idem-ghost-duplicate seeded bug (a same-key race answered as one
 * payment while each request made one), each against the clean service.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceService, variantByName, type RunningService } from '../../src/target/index.ts';
import { CARDS, KEYS, card, client, freshIdem, sleep } from './helpers.ts';

const running: RunningService[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});
async function start(o: Parameters<typeof startReferenceService>[0]) {
  const s = await startReferenceService({ port: 0, ...o });
  running.push(s);
  return { s, c: client(s, KEYS.acmeTest) };
}

/** Polls every 10 ms until terminal; the statuses seen, in order, without repeats. */
async function pollStatuses(c: ReturnType<typeof client>, id: string, first: string, stopAt = ['succeeded', 'failed', 'expired', 'canceled']): Promise<string[]> {
  const seen = [first];
  for (let i = 0; i < 300; i++) {
    const p = await c.payment(id);
    if (p && p.status !== seen[seen.length - 1]) seen.push(p.status);
    if (p && stopAt.includes(p.status)) return seen;
    await sleep(10);
  }
  return seen;
}

describe('challenge-expires-fast variant', () => {
  const options = variantByName('challenge-expires-fast')!.options;
  it('expires the 3DS challenge within moments of its opening; the clean service keeps it open', async () => {
    const fast = await start({ ...options, timeScale: 0.05 });
    const clean = await start({ timeScale: 0.05 });
    const r = await fast.c.create({ card: card(CARDS.three_ds_challenge) });
    const q = await clean.c.create({ card: card(CARDS.three_ds_challenge) });
    expect(r.status).toBe(201);
    expect(r.json.status).toBe('pending');
    const seen = await pollStatuses(fast.c, r.json.id, r.json.status);
    // The challenge lives 1 ms, so a poll sees requires_action rarely (timer latency); the end is certain.
    expect(seen[seen.length - 1]).toBe('expired');
    expect((await fast.c.payment(r.json.id))!.failureCode).toBe('three_d_secure_timeout');
    // The clean service's challenge (15 s at this time scale) is open meanwhile.
    expect(await pollStatuses(clean.c, q.json.id, q.json.status, ['requires_action', 'expired'])).toEqual(['pending', 'requires_action']);
  });
  it('keeps the other cards as they are', async () => {
    const fast = await start({ ...options, timeScale: 0.05 });
    const r = await fast.c.create({});
    expect(await pollStatuses(fast.c, r.json.id, r.json.status)).toEqual(['pending', 'succeeded']);
  });
});

describe('idem-ghost-duplicate seeded bug', () => {
  async function race(bugs: string[]) {
    const { c } = await start({ timeScale: 0.05, bugs });
    const idem = freshIdem();
    const description = `race ${freshIdem()}`;
    const rs = await Promise.all(Array.from({ length: 6 }, () => c.create({ description }, { idem })));
    const answered = new Set(rs.filter((r) => r.status === 201).map((r) => r.json.id as string));
    const listed = ((await c.get('/v1/payments?limit=100')).json.data as { id: string; description?: string }[]).filter((p) => p.description === description);
    return { statuses: rs.map((r) => r.status), answered, listed: listed.map((p) => p.id) };
  }
  it('answers every caller with one payment while lists show one per request', async () => {
    const bugged = await race(['idem-ghost-duplicate']);
    expect(bugged.statuses.every((s) => s === 201)).toBe(true);
    expect(bugged.answered.size).toBe(1);
    // A request that arrives after the first finished is a plain replay: at least one ghost, at most one per request.
    expect(bugged.listed.length).toBeGreaterThan(1);
    expect(bugged.listed.length).toBeLessThanOrEqual(6);
    expect(bugged.listed).toContain([...bugged.answered][0]);
  });
  it('clean: one payment, the rest 409 idempotency_key_in_use or replays', async () => {
    const clean = await race([]);
    expect(clean.answered.size).toBe(1);
    expect(clean.listed.length).toBe(1);
  });
});
