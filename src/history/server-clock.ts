/**
 * The server's clock offset from ours, estimated from the responses' Date headers (history field
 * `date`, Unix seconds). A Date header of D was written while the server's clock read
 * [D, D + 1) s, at some moment between our send and our receipt, so each exchange bounds
 * offset = server - ours to (D*1000 - wallEnd, D*1000 + 1000 - wallStart). Over many exchanges
 * the intersection is tight (a fast exchange that happens to straddle a second edge pins it to
 * its round trip). When the bounds cross (several nodes with different clocks, or a clock that
 * stepped during the run), the midpoint of the crossed bounds is taken and the uncertainty
 * covers both, so judging in server time never becomes stricter than the evidence allows.
 *
 * The lower bound is sound whatever the server does. The upper one is not: servers cache the
 * Date string and refresh it on a timer (Node does), so a busy event loop sends a Date up to
 * its lag behind. The upper bound is therefore the 1st percentile of the per-exchange upper
 * bounds, and at least the third smallest from 20 answers on (the smallest below), not their minimum.
 *
 * In src/history because it is a reading of the history's records (their Date headers), and both
 * sides read the contract's times (created, X-RateLimit-Reset) in this
 * clock: scenarios to send created bounds, the oracle to judge them.
 */
import type { ExchangeRecord } from './schema.ts';

export interface ServerClockEstimate {
  /** Server clock minus ours, ms (positive: the server is ahead). */
  offsetMs: number;
  /** Half the width of the interval the offset lies in, ms. */
  uncertaintyMs: number;
  /** Exchanges whose Date header was used. */
  samples: number;
  /** False when the Date headers disagree with one clock (several nodes, a clock step). */
  consistent: boolean;
  /** Seqs of the two exchanges that set the bounds (evidence). */
  lowerSeq: number;
  upperSeq: number;
}

/** How many of the smallest upper bounds are kept (the 1st percentile of up to 6,400 samples, then a little lower). */
const KEEP_UPPER = 64;

export class ServerClock {
  private lower = -Infinity;
  private lowerSeq = 0;
  /** The smallest per-exchange upper bounds, ascending, with their seqs. */
  private readonly uppers: number[] = [];
  private readonly upperSeqs: number[] = [];
  private samples = 0;
  /** The shortest round trip among the samples, ms. */
  private minRttMs = Infinity;

  /** An answered exchange (status > 0) with a Date header. */
  add(x: ExchangeRecord): void {
    if (x.date === undefined || x.status === 0) return;
    const wallStart = x.wall;
    const wallEnd = x.wall + (x.tEnd - x.tStart);
    const lo = x.date * 1000 - wallEnd;
    const hi = x.date * 1000 + 1000 - wallStart;
    this.samples++;
    if (wallEnd - wallStart < this.minRttMs) this.minRttMs = wallEnd - wallStart;
    if (lo > this.lower) (this.lower = lo), (this.lowerSeq = x.seq);
    const u = this.uppers;
    if (u.length === KEEP_UPPER && hi >= u[u.length - 1]) return;
    let i = u.length;
    while (i > 0 && u[i - 1] > hi) i--;
    u.splice(i, 0, hi);
    this.upperSeqs.splice(i, 0, x.seq);
    if (u.length > KEEP_UPPER) (u.pop(), this.upperSeqs.pop());
  }

  estimate(): ServerClockEstimate | null {
    if (this.samples === 0) return null;
    // Drop the 1% smallest upper bounds, and at least two once there are 20 answers (stale Dates come in runs: one busy turn of the server's event loop).
    const k = Math.min(this.uppers.length - 1, Math.max(Math.floor(this.samples / 100), this.samples >= 20 ? 2 : 0));
    const upper = this.uppers[k];
    // Crossed bounds: the truth lies between them (several clocks) or just above the lower one
    // (a stale Date pulled the upper one down), which a round trip's margin covers.
    const crossed = upper < this.lower;
    return {
      offsetMs: (this.lower + upper) / 2,
      uncertaintyMs: Math.abs(upper - this.lower) / 2 + (crossed ? this.minRttMs + 10 : 0),
      samples: this.samples,
      consistent: this.lower <= upper,
      lowerSeq: this.lowerSeq,
      upperSeq: this.upperSeqs[k],
    };
  }
}
