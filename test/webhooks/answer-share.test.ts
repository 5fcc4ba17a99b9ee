/**
 * The receiver's fail share holds on short runs: the per-event draw alone can fail none of a
 * few events, which would leave WH-8/WH-9 unexercised and fail a good service's run.
 */
import { describe, expect, it } from 'vitest';
import { AnswerBook, draw } from '../../src/webhooks/index.ts';

/** Event ids whose own draw says "do not fail" at this share: the worst case for a short run. */
function unluckyIds(seed: number, share: number, n: number): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < n; i++) if (draw(seed, `evt_${i}`, 0) >= share) ids.push(`evt_${i}`);
  return ids;
}

describe('webhook receiver fail share', () => {
  it('fails the rounded share of test-mode events even when every draw says ok', () => {
    const book = new AnswerBook({ seed: 9, failShare: 0.2, stallShare: 0, now: () => 0 });
    const answers = unluckyIds(9, 0.2, 10).map((id, i) => book.answer(id, 0, false, i * 1000));
    expect(answers.filter((a) => a === 'fail').length).toBe(2);
    // The first failure comes by the third event (round(3 × 0.2) = 1), not at the end.
    expect(answers.slice(0, 3)).toContain('fail');
  });

  it('fails nothing at share 0 and never fails a live-mode event', () => {
    const none = new AnswerBook({ seed: 9, failShare: 0, stallShare: 0, now: () => 0 });
    expect(unluckyIds(9, 0.2, 10).map((id) => none.answer(id, 0, false)).every((a) => a === 'ok')).toBe(true);
    const live = new AnswerBook({ seed: 9, failShare: 0.5, stallShare: 0, now: () => 0 });
    expect(unluckyIds(9, 0.5, 10).map((id) => live.answer(id, 0, true)).every((a) => a === 'ok')).toBe(true);
  });

  it('does not top up beyond the share when the draw already failed enough', () => {
    const book = new AnswerBook({ seed: 9, failShare: 0.2, stallShare: 0, now: () => 0 });
    const ids = Array.from({ length: 200 }, (_, i) => `evt_${i}`);
    const drawn = ids.filter((id) => draw(9, id, 0) < 0.2).length;
    const failed = ids.map((id, i) => book.answer(id, 0, false, i * 1000)).filter((a) => a === 'fail').length;
    expect(failed).toBeGreaterThanOrEqual(drawn);
    expect(failed).toBeLessThanOrEqual(Math.max(drawn, Math.round(200 * 0.2)) + 1);
  });
});
