/**
 * The receiver's answer policy under at-least-once delivery: failures are counted per delivery
 * chain (the first delivery, a copy, each with its own retries), so each copy gets the failures
 * the policy intends and growth can be judged on each chain.
 */
import { describe, expect, it } from 'vitest';
import { AnswerBook, COPY_GAP_MS, MAX_FAILED_CHAINS } from '../../src/webhooks/answer.ts';

/** Answers for one event id delivered at these times (attempt = earlier deliveries of the id). */
function answers(book: AnswerBook, id: string, times: number[]): string[] {
  return times.map((t, i) => book.answer(id, i, false, t));
}

describe('AnswerBook: failures per delivery chain', () => {
  it('without copies, a repeat event fails its first three attempts, then is answered', () => {
    const book = new AnswerBook({ seed: 1, failShare: 1, stallShare: 0, failAttempts: 3 });
    expect(answers(book, 'evt_a', [0, 250, 750, 1750])).toEqual(['fail', 'fail', 'fail', 'ok']);
  });

  it('a copy close behind the first delivery gets its own three failures; the retries of both chains interleave', () => {
    const book = new AnswerBook({ seed: 1, failShare: 1, stallShare: 0, failAttempts: 3 });
    // Chain A at 0, 250, 750, 1750; its copy B 30 ms behind each.
    const times = [0, 30, 250, 280, 750, 780, 1750, 1780];
    expect(answers(book, 'evt_a', times)).toEqual(['fail', 'fail', 'fail', 'fail', 'fail', 'fail', 'ok', 'ok']);
  });

  it('a delivery after the 2xx is a copy: failed like the first delivery; past MAX_FAILED_CHAINS chains nothing more fails', () => {
    expect(MAX_FAILED_CHAINS).toBe(2);
    const book = new AnswerBook({ seed: 1, failShare: 1, stallShare: 0, failAttempts: 1 });
    expect(answers(book, 'evt_a', [0, 1000, 5000, 6000, 9000, 9000 + COPY_GAP_MS * 2])).toEqual(['fail', 'ok', 'fail', 'ok', 'ok', 'ok']);
  });

  it('a delivery COPY_GAP_MS or more after the failure, before any 2xx, continues the chain (a retry)', () => {
    const book = new AnswerBook({ seed: 1, failShare: 1, stallShare: 0, failAttempts: 1 });
    expect(answers(book, 'evt_a', [0, COPY_GAP_MS])).toEqual(['fail', 'ok']);
  });
});
