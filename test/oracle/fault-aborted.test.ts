/**
 * FT-4 judges a create left without an answer during an upstream fault as the service's doing,
 * except a time-out, and a request paystorm itself cut off by closing its client (`aborted`).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, fault, judgeOne, resetSeq } from './fixtures.ts';

beforeEach(() => resetSeq());

describe('FT-4: no answer during an upstream fault', () => {
  const down = fault({ tStart: 1000, tEnd: 5000, tApplied: 1150, tRemoving: 4900 });
  const noAnswer = (failure: 'reset' | 'aborted') => ({ ...create({ seq: 7, t: 2000, dur: 20, status: 0 }), failure });

  it('a reset is a violation; a request paystorm aborted (closing its client) is not judged', async () => {
    expect((await judgeOne('fault-responses-well-formed', [down, noAnswer('reset')])).status).toBe('fail');
    resetSeq();
    expect((await judgeOne('fault-responses-well-formed', [down, noAnswer('aborted')])).violations).toBe(0);
  });
});
