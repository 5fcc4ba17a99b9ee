/**
 * The input variants of the reference service (src/target/variants.ts), each against the clean
 * service: lenient-types coerces a value the spec only types, return-url-at-3ds enforces B's
 * return_url when 3DS triggers, own-input-shape-only reads only the presentation's input table.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { variantByName } from '../../src/target/variants.ts';
import { CARDS, KEYS, card, client, closeAll, createBody, start } from './helpers.ts';

afterAll(closeAll);

const opts = (name: string) => {
  const v = variantByName(name);
  if (!v) throw new Error(`no variant ${name}`);
  return v.options;
};

describe('lenient-types', () => {
  const body = () => {
    const b = createBody();
    (b.card as Record<string, unknown>).exp_month = '12';
    (b.card as Record<string, unknown>).cvc = 123;
    b.amount = '1000';
    return b;
  };
  it('accepts exp_month "12", cvc 123 and amount "1000", coerced to their types', async () => {
    const s = await start(opts('lenient-types'));
    const c = client(s, KEYS.acmeTest);
    const r = await c.post('/v1/payments', body());
    expect(r.status, r.text).toBe(201);
    expect(r.json.amount).toBe(1000);
    const p = await c.waitFor(r.json.id, (x) => x.status === 'succeeded');
    expect(p.card?.exp_month).toBe(12);
  });
  it('still refuses what does not convert without loss (amount 10.5, exp_month "twelve")', async () => {
    const s = await start(opts('lenient-types'));
    const c = client(s, KEYS.acmeTest);
    expect((await c.post('/v1/payments', { ...createBody(), amount: 10.5 })).status).toBe(400);
    const b = createBody();
    (b.card as Record<string, unknown>).exp_month = 'twelve';
    const r = await c.post('/v1/payments', b);
    expect(r.status).toBe(400);
    expect(r.json.error.param).toContain('exp_month');
  });
  it('the clean service refuses the same body with 400 parameter_invalid', async () => {
    const s = await start();
    const r = await client(s, KEYS.acmeTest).post('/v1/payments', body());
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('parameter_invalid');
  });
});

describe('return-url-at-3ds', () => {
  const noReturnUrl = (number: string) => createBody({ card: card(number), returnUrl: undefined });
  it('accepts a create without return_url for the 3DS card, then fails the payment when 3DS triggers', async () => {
    const s = await start(opts('return-url-at-3ds'));
    const c = client(s, KEYS.acmeTest);
    const r = await c.post('/v1/payments', noReturnUrl(CARDS.three_ds_challenge));
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toBe('pending');
    const p = await c.waitFor(r.json.id, (x) => x.status !== 'pending');
    expect(p.status).toBe('failed');
    expect(p.failureCode).toBe('generic_decline');
  });
  it('a card without 3DS succeeds without return_url; with return_url the 3DS card is challenged as usual', async () => {
    const s = await start(opts('return-url-at-3ds'));
    const c = client(s, KEYS.acmeTest);
    const plain = await c.post('/v1/payments', noReturnUrl(CARDS.succeeds));
    expect((await c.waitFor(plain.json.id, (x) => x.status !== 'pending')).status).toBe('succeeded');
    const tds = await c.create({ card: card(CARDS.three_ds_challenge) });
    expect((await c.waitFor(tds.json.id, (x) => x.status !== 'pending')).status).toBe('requires_action');
  });
  it('the clean service refuses the 3DS card without return_url at the create', async () => {
    const s = await start({ presentation: 'B' });
    const r = await client(s, KEYS.acmeTest).post('/v1/payments', noReturnUrl(CARDS.three_ds_challenge));
    expect(r.status).toBe(400);
    expect(r.json.error.param).toBe('return_url');
  });
});

describe.each([
  ['own-input-shape-only', 'B', 'A', 'card'],
  ['own-input-shape-only-a', 'A', 'B', 'payment_method_data'],
] as const)('%s', (name, own, other, missing) => {
  it(`reads only presentation ${own}'s input table: a body in shape ${other} lacks ${missing}`, async () => {
    const s = await start(opts(name));
    const c = client(s, KEYS.acmeTest);
    expect((await c.create({}, { shape: own })).status).toBe(201);
    const r = await c.create({}, { shape: other });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('parameter_invalid');
    expect(r.json.error.param).toBe(missing);
  });
  it(`the clean service of presentation ${own} accepts both shapes`, async () => {
    const s = await start({ presentation: own });
    const c = client(s, KEYS.acmeTest);
    expect((await c.create({}, { shape: other })).status).toBe(201);
  });
});
