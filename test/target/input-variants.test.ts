/**
 * The input variants of the reference service (src/target/variants.ts), each against the clean
 * service: lenient-types coerces a value the spec only types, return-url-at-3ds enforces B's
 * return_url when 3DS triggers, own-input-shape-only reads only the presentation's input table,
 * hosted-return-url-optional accepts a hosted create without return_url, dual-input-shape-a/-b
 * name the other shape's field for a create that carries neither shape's card or customer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { normalizePayment, validatePaymentShape } from '../../src/spec/index.ts';
import { variantByName } from '../../src/target/variants.ts';
import { CARDS, KEYS, card, client, closeAll, createBody, hostedBody, http, start } from './helpers.ts';

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

describe('hosted-return-url-optional', () => {
  const noReturnUrl = () => hostedBody({ returnUrl: undefined });
  it.each(['A', 'B'] as const)('presentation %s: a hosted create without return_url is 201 with a well-formed hosted payment; the page then ends on a done page', async (presentation) => {
    const s = await start({ ...opts('hosted-return-url-optional'), presentation });
    const c = client(s, KEYS.acmeTest);
    const r = await c.post('/v1/payments/hpp', noReturnUrl());
    expect(r.status, r.text).toBe(201);
    expect(validatePaymentShape(r.json)).toEqual([]);
    const p = normalizePayment(r.json)!;
    expect(p.status).toBe('requires_action');
    expect(p.nextAction).toMatchObject({ type: 'redirect' });
    const form = new URLSearchParams({ number: CARDS.succeeds, exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: '123', holder_name: 'Pay Storm' });
    const sub = await http(s.url, 'POST', p.nextAction!.redirectUrl!, { key: null, idem: null, body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(sub.status).toBe(200);
    expect(sub.headers.location).toBeUndefined();
    expect((await c.waitFor(p.id, (x) => x.status !== 'requires_action')).status).toBe('succeeded');
  });
  it('still refuses a return_url it is given that is not a URL, naming return_url; the Direct API still requires it in A', async () => {
    const s = await start({ ...opts('hosted-return-url-optional'), presentation: 'A' });
    const c = client(s, KEYS.acmeTest);
    const bad = await c.post('/v1/payments/hpp', { ...noReturnUrl(), return_url: 'not a url' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('return_url');
    const direct = await c.post('/v1/payments', createBody({ returnUrl: undefined }, 'A'));
    expect(direct.status).toBe(400);
    expect(direct.json.error.param).toBe('return_url');
  });
  it('the clean service refuses a hosted create without return_url, naming it', async () => {
    const s = await start();
    const r = await client(s, KEYS.acmeTest).post('/v1/payments/hpp', noReturnUrl());
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('parameter_invalid');
    expect(r.json.error.param).toBe('return_url');
  });
});

describe.each([
  // variant, its presentation, the shape it names, [body shape, field removed, param named]...
  ['dual-input-shape-a', 'A', [['A', 'payment_method_data', 'card'], ['A', 'billing_details', 'customer'], ['B', 'card', 'card'], ['B', 'customer', 'customer']]],
  ['dual-input-shape-b', 'B', [['B', 'card', 'payment_method_data'], ['B', 'customer', 'billing_details'], ['A', 'payment_method_data', 'payment_method_data'], ['A', 'billing_details', 'billing_details']]],
] as const)('%s', (name, presentation, missing) => {
  it.each(missing.map((m) => [...m]))('a body in shape %s without %s (so without either shape\'s field) is refused naming %s', async (shape, field, param) => {
    const s = await start(opts(name));
    const body = createBody({}, shape);
    delete body[field];
    const r = await client(s, KEYS.acmeTest).post('/v1/payments', body);
    expect(r.status, r.text).toBe(400);
    expect(r.json.error.code).toBe('parameter_invalid');
    expect(r.json.error.param).toBe(param);
  });
  it(`reads both shapes (presentation ${presentation}), and names the card's own sub-field when the card is there`, async () => {
    const s = await start(opts(name));
    const c = client(s, KEYS.acmeTest);
    expect((await c.create({}, { shape: 'A' })).status).toBe(201);
    expect((await c.create({}, { shape: 'B' })).status).toBe(201);
    const body = createBody({}, 'B');
    delete (body.card as Record<string, unknown>).cvc;
    expect((await c.post('/v1/payments', body)).json.error.param).toBe('card.cvc');
  });
  it('the clean service names the field of the shape the body uses', async () => {
    const s = await start({ presentation });
    const c = client(s, KEYS.acmeTest);
    const a = createBody({}, 'A');
    delete a.payment_method_data;
    expect((await c.post('/v1/payments', a)).json.error.param).toBe('payment_method_data');
    const b = createBody({}, 'B');
    delete b.card;
    expect((await c.post('/v1/payments', b)).json.error.param).toBe('card');
  });
});

it('dualShapeNames cannot be combined with ownInputShapeOnly', async () => {
  await expect(start({ dualShapeNames: 'B', ownInputShapeOnly: true })).rejects.toThrow(/dualShapeNames/);
});
