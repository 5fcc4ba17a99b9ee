/**
 * The k6 judge thread's records: what the main thread sends while it reads a k6 output file
 * (src/history/k6.ts K6Follower): the foreseen run record, batches of exchanges in start order
 * as their records' texts, then the run's facts and end record. Batches are decoded when the
 * oracle asks for them, so a judge that lags holds bytes, not objects.
 */
import { k6ExchangeOfText } from '../../history/k6.ts';
import type { HistoryRecord, RunRecord } from '../../history/index.ts';
import type { K6ExchangeBatch, ToJudge } from './protocol.ts';

/** Exchanges decoded at a time. */
const DECODE_SLICE = 64;

type Item = { records: HistoryRecord[] } | { exchanges: K6ExchangeBatch } | null;

export class K6Feed {
  private readonly items: Item[] = [];
  private wake: (() => void) | null = null;
  private run: RunRecord | null = null;
  private originMs = 0;
  private seq = 0;

  constructor(
    private readonly path: string,
    /** Given each batch once decoded (its buffers can be written again). */
    private readonly recycle: (b: K6ExchangeBatch) => void = () => undefined,
  ) {}

  /** A message from the main thread. */
  take(m: ToJudge): void {
    if ('k6start' in m) {
      this.run = m.k6start.run;
      this.originMs = m.k6start.originMs;
      this.push({ records: [this.run] });
    } else if ('k6exchanges' in m) {
      this.push({ exchanges: m.k6exchanges });
    } else if ('k6finish' in m) {
      // The oracle holds the run record given first: its facts are the file's, known now.
      if (this.run) this.run.facts = m.k6finish.facts;
      this.push({ records: [m.k6finish.end] });
      this.push(null);
    }
  }

  private push(item: Item): void {
    this.items.push(item);
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Exchanges from..to of the batch, decoded. */
  private decode(b: K6ExchangeBatch, buf: Buffer, from: number, to: number): HistoryRecord[] {
    const out: HistoryRecord[] = new Array(to - from);
    for (let i = from; i < to; i++) {
      const at = 3 * i;
      out[i - from] = k6ExchangeOfText(this.path, buf.toString('utf8', b.bounds[at], b.bounds[at + 1]), b.bounds[at + 2], ++this.seq, this.originMs);
    }
    return out;
  }

  async *batches(): AsyncGenerator<HistoryRecord[]> {
    for (;;) {
      if (this.items.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
      const item = this.items.shift()!;
      if (item === null) return;
      if ('records' in item) {
        yield item.records;
        continue;
      }
      // Decoded a few at a time: the records of a slice die young together, so a scavenge finds
      // few of them alive to copy (a whole batch decoded at once was mostly alive at every one).
      const b = item.exchanges;
      const buf = Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.bytes.byteLength);
      for (let from = 0; from < b.count; from += DECODE_SLICE) yield this.decode(b, buf, from, Math.min(b.count, from + DECODE_SLICE));
      this.recycle(b);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<HistoryRecord> {
    for await (const batch of this.batches()) yield* batch;
  }
}
