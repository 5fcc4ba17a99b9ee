/**
 * The live judge holds off while the load saturates the event loop (load-pacer.ts): the flag goes
 * up when the loop was busy nearly all of a period, down again only once it is clearly not.
 */
import { describe, expect, it } from 'vitest';
import { HOLD_FROM, holdFlag, isHeld, LoadPacer, nextHold, RELEASE_BELOW } from '../../src/cli/live/load-pacer.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Keeps this thread busy for `ms` (the event loop saturated). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

describe('LoadPacer', () => {
  it('holds from HOLD_FROM and lets go only below RELEASE_BELOW (no flapping in between)', () => {
    expect(HOLD_FROM).toBeGreaterThan(RELEASE_BELOW);
    expect(nextHold(false, HOLD_FROM)).toBe(true);
    expect(nextHold(false, HOLD_FROM - 0.01)).toBe(false);
    expect(nextHold(true, (HOLD_FROM + RELEASE_BELOW) / 2)).toBe(true);
    expect(nextHold(true, RELEASE_BELOW - 0.01)).toBe(false);
  });

  it('raises the flag after a period the loop was busy all through, lowers it after an idle one, and stop() lowers it; tells each change', async () => {
    const flag = holdFlag();
    const told: boolean[] = [];
    // Sampled by hand: a long period so that the timer never samples in between.
    const pacer = new LoadPacer(flag, 3_600_000, (held) => told.push(held));
    try {
      expect(isHeld(flag)).toBe(false);
      spin(300);
      expect(pacer.sample()).toBeGreaterThanOrEqual(HOLD_FROM);
      expect(isHeld(flag)).toBe(true);
      await sleep(300);
      expect(pacer.sample()).toBeLessThan(RELEASE_BELOW);
      expect(isHeld(flag)).toBe(false);
      spin(300);
      pacer.sample();
      expect(isHeld(flag)).toBe(true);
      spin(300);
      pacer.sample();
    } finally {
      pacer.stop();
    }
    expect(isHeld(flag)).toBe(false);
    // Told of each change only (the second busy period changed nothing), and of the release at stop().
    expect(told).toEqual([true, false, true, false]);
  });
});
