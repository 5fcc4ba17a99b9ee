import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_INPUT_CASES, ERROR_BODY_FIELDS, ERROR_CODES, listQueryString, paramMatches, validBadInputBase, REFUND_BASE_PAYMENT_AMOUNT } from '../../src/spec/index.ts';
import type { RunningService } from '../../src/target/index.ts';
import { KEYS, client, closeAll, freshIdem, http, start } from './helpers.ts';

afterAll(closeAll);

describe.each(['A', 'B'] as const)('bad inputs, presentation %s', (presentation) => {
  let s: RunningService;
  let succeededId: string;
  beforeAll(async () => {
    s = await start({ presentation, rateLimit: 100_000 });
    const c = client(s, KEYS.acmeTest);
    const p = await c.create({ amount: REFUND_BASE_PAYMENT_AMOUNT });
    await c.waitFor(p.json.id, (x) => x.status === 'succeeded');
    succeededId = p.json.id;
  });

  it.each(BAD_INPUT_CASES.map((c) => [c.case, c] as const))('%s', async (_name, bc) => {
    const valid = validBadInputBase(bc.op, bc.shape ?? 'B');
    const mutated = bc.mutate(valid);
    const headers: Record<string, string> = {};
    let idem: string | null = freshIdem();
    for (const [h, v] of Object.entries(bc.headers ?? {})) {
      if (h.toLowerCase() === 'idempotency-key') idem = v;
      else if (v !== null) headers[h] = v;
    }
    let r;
    if (bc.op === 'list') {
      r = await http(s.url, 'GET', `/v1/payments?${listQueryString(mutated as Record<string, unknown>)}`, { key: KEYS.acmeTest });
    } else {
      const path = bc.op === 'create' ? '/v1/payments' : bc.op === 'create_hpp' ? '/v1/payments/hpp' : `/v1/payments/${succeededId}/refund`;
      r = await http(s.url, 'POST', path, { key: KEYS.acmeTest, body: mutated, idem, headers });
    }
    expect(r.status, r.text).toBe(bc.expectStatus);
    // An acceptance case (a value at a limit, or one a rule allows) is a created payment.
    if (bc.expectStatus === 201) return expect(r.json.object ?? r.json.id.slice(0, 4)).toMatch(/^(payment|pay_)$/);
    expect(r.json.error.code, r.text).toBe(bc.expectCode);
    expect(r.json.error.type).toBe(ERROR_CODES[bc.expectCode].type);
    expect(Object.keys(r.json.error).sort()).toEqual([...ERROR_BODY_FIELDS].sort());
    expect(r.json.error.request_id).toMatch(/^req_/);
    expect(paramMatches(bc.expectParam, r.json.error.param), `param ${r.json.error.param} should contain ${bc.expectParam}`).toBe(true);
    if (bc.expectParam !== null) expect(r.json.error.param).toContain(bc.expectParam);
    expect(r.headers['content-type']).toBe('application/json');
  });

  it('the valid base request of every op succeeds, so each case fails for its one change', async () => {
    const c = client(s, KEYS.acmeTest);
    for (const shape of ['A', 'B'] as const) expect((await c.post('/v1/payments', validBadInputBase('create', shape))).status).toBe(201);
    expect((await c.post('/v1/payments/hpp', validBadInputBase('create_hpp', 'A'))).status).toBe(201);
    expect((await c.get(`/v1/payments?${listQueryString(validBadInputBase('list'))}`)).status).toBe(200);
    expect((await c.refund(succeededId, validBadInputBase('refund'))).status).toBe(201);
  });
});

describe('the catalog', () => {
  it('covers every op, both shapes, and has unique names', () => {
    const names = BAD_INPUT_CASES.map((c) => c.case);
    expect(new Set(names).size).toBe(names.length);
    for (const op of ['create', 'create_hpp', 'list', 'refund']) expect(BAD_INPUT_CASES.some((c) => c.op === op)).toBe(true);
    expect(BAD_INPUT_CASES.some((c) => c.shape === 'A')).toBe(true);
    expect(BAD_INPUT_CASES.some((c) => c.shape === 'B')).toBe(true);
    expect(paramMatches('cvc', 'card.cvc')).toBe(true);
    expect(paramMatches('cvc', null)).toBe(false);
    expect(paramMatches(null, null)).toBe(true);
  });
});
