/**
 * The server's clock as scenarios need it: values sent to the server in its own Unix seconds
 * (created[gte] / created[lt]) must come from its clock, not ours, or a host whose clock is a
 * few seconds off would be probed around the wrong second. Learned from the Date headers of
 * answers, as the oracle does (src/history/server-clock.ts).
 */
import type { ExchangeRecord } from '../../src/history/index.ts';
import { ServerClock } from '../../src/history/server-clock.ts';

export class ServerTime {
  private readonly clock = new ServerClock();

  /** Feeds an answer (its Date header, if any). */
  learn(rec: ExchangeRecord): this {
    this.clock.add(rec);
    return this;
  }

  /** Server minus our clock, ms (0 until an answer with a Date header was seen). */
  get offsetMs(): number {
    return this.clock.estimate()?.offsetMs ?? 0;
  }

  /** How far off offsetMs may be, ms (a second when nothing was learned). */
  get uncertaintyMs(): number {
    return this.clock.estimate()?.uncertaintyMs ?? 1000;
  }

  /** The server's Unix seconds now (floor). */
  seconds(): number {
    return Math.floor((Date.now() + this.offsetMs) / 1000);
  }
}
