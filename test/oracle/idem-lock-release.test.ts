/**
 * IDEM-5 says a request gets 409 idempotency_key_in_use only while another with its key is in
 * flight. A server may free the key just after its answer has left (a lock released once the
 * response is written), so a request sent a few ms after that answer may still find it held.
 * Found in review.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, err, judgeOne, resetSeq } from './fixtures.ts';

beforeEach(() => resetSeq());

describe('IDEM-5 (idem-in-flight): a key released just after its answer left', () => {
  const A = 'pay_00000000-0000-4000-8000-0000000000c1';
  const conflict = { status: 409, error: err('idempotency_key_in_use', { type: 'idempotency_error' }) };

  it('a 409 in_use for a request sent 5 ms after the previous answer is not judged (the server may not have released the key yet)', async () => {
    const r = await judgeOne('idem-in-flight', [create({ seq: 1, idemKey: 'k', id: A, t: 0, dur: 50 }), create({ seq: 2, idemKey: 'k', t: 55, ...conflict })]);
    expect(r.violations).toBe(0);
  });

  it('50 ms after it, it is a violation', async () => {
    const r = await judgeOne('idem-in-flight', [create({ seq: 1, idemKey: 'k', id: A, t: 0, dur: 50 }), create({ seq: 2, idemKey: 'k', t: 100, ...conflict })]);
    expect(r.examples[0].message).toMatch(/no request with this key was in flight/);
  });
});
