import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BINARY_MAGIC, RecordDecoder, RecordEncoder } from '../../src/history/codec.ts';
import { HistoryWriter, readHistory, type HistoryRecord } from '../../src/history/index.ts';
import { PaystormError } from '../../src/spec/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'paystorm-codec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What JSON would give back: the codec's contract. */
const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v));

function roundTrip(values: unknown[]): unknown[] {
  const enc = new RecordEncoder();
  // Each frame copied: encode's result is a view the next call reuses.
  const frames = Buffer.concat(values.map((v) => Buffer.from(enc.encode(v))));
  const out: unknown[] = [];
  expect(new RecordDecoder().frames(frames, 0, frames.length, out)).toBe(frames.length);
  return out;
}

describe('history codec', () => {
  it('gives back exactly what JSON gives back, for awkward values', () => {
    const values: unknown[] = [
      { a: 0, b: -0, c: NaN, d: Infinity, e: -1, f: 2 ** 53 - 1, g: -(2 ** 53) + 1, h: 1e300, i: 0.1 + 0.2, j: 1312.149, k: 1795624388300.151, l: -5.5 },
      { s: '', t: 'é…漢字😀', u: 'x'.repeat(5000), v: undefined, w: () => 1, arr: [1, undefined, 'a', null, [2, [3]], { z: 1 }] },
      { ['__proto__']: { polluted: true }, constructor: 'c', 'with space': 1, '0': 'zero' },
      [],
      'a bare string',
      null,
      { nested: { deeper: { deepest: [true, false, null] } } },
    ];
    const out = roundTrip(values);
    expect(out).toEqual(values.map(viaJson));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out[2])).toBe(Object.prototype);
  });

  it('writes objects whose shape changes from one record to the next in the same place as JSON gives them back (the encoder guesses the last two shapes seen there)', () => {
    // Three shapes taking turns in one slot, in arrays and at the top; keys JSON leaves out
    // (undefined, a function) making one shape look like another; a key order changed.
    const shapes = [
      (i: number) => ({ a: i, b: 'x' }),
      (i: number) => ({ a: i, b: 'x', c: i % 3 === 0 ? undefined : i }),
      (i: number) => ({ b: 'y', a: i }),
      (i: number) => ({ a: i, b: 'z', f: () => i }),
    ];
    const values: unknown[] = [];
    for (let i = 0; i < 400; i++) {
      const inner = shapes[(i * 7) % 4](i);
      values.push({ kind: 'r', slot: inner, list: [shapes[i % 4](i), shapes[(i + 1) % 4](i), null, shapes[(i >> 2) % 4](i)] });
      if (i % 5 === 0) values.push(shapes[i % 3](i));
    }
    const out = roundTrip(values);
    expect(out).toEqual(values.map(viaJson));
    expect(JSON.stringify(out)).toBe(JSON.stringify(values.map(viaJson)));
  });

  it('keeps key lists apart that a separator join would confuse (a key containing NUL)', () => {
    const values = [
      { kind: 'exchange', payment: { metadata: { a: '1', b: '2' } } },
      { kind: 'exchange', payment: { metadata: { 'a\u0000b': '3' } } },
      { kind: 'exchange', payment: { metadata: { a: '4', b: '5' } } },
      { kind: 'end', n: 1 },
    ];
    expect(roundTrip(values)).toEqual(values.map(viaJson));
  });

  it('sends numbers of one slot as differences and gets every value back (times, seq, wall clock)', () => {
    const recs = Array.from({ length: 2000 }, (_, i) => ({ seq: i + 1, tStart: Math.round((i * 3.7 + 0.001 * (i % 7)) * 1000) / 1000, wall: Math.round((1795624388300.151 + i * 3.7) * 1000) / 1000, status: i % 3 ? 200 : 429, amount: i % 2 ? 1000 : -3 }));
    const enc = new RecordEncoder();
    const sizes = recs.map((r) => enc.encode(r).length);
    // Sent whole, seq (past 223), tStart and wall (microsecond integers) alone would take 3 + 5 + 9
    // bytes a record; as differences from the record before they take a few bytes in all.
    expect(sizes.slice(300).reduce((a, b) => a + b, 0) / (recs.length - 300)).toBeLessThan(17);
    expect(roundTrip(recs)).toEqual(recs.map(viaJson));
  });

  it('keeps its tables bounded: more distinct strings than the ring and more shapes than the table still decode', () => {
    const values = Array.from({ length: 70_000 }, (_, i) => ({ id: `pay_${i}`, [`k${i % 9000}`]: i, again: `pay_${Math.max(0, i - 3)}` }));
    expect(roundTrip(values)).toEqual(values);
  });

  it('says where a damaged file stops decoding, and tolerates a last record cut short', async () => {
    const enc = new RecordEncoder();
    const run = { v: 1, kind: 'end', tEnd: 1, wall: 1, complete: true, reason: 'done', requests: 0, dropped: 0 };
    const frame = Buffer.from(enc.encode(run));
    const good = Buffer.concat([BINARY_MAGIC, frame]);
    const cut = join(dir, 'cut.bin');
    writeFileSync(cut, Buffer.concat([good, new RecordEncoder().encode(run).subarray(0, 5)]));
    const warnings: string[] = [];
    const f = readHistory(cut, { onWarning: (m) => warnings.push(m) });
    const got: HistoryRecord[] = [];
    for await (const r of f) got.push(r);
    expect(got).toHaveLength(1);
    expect(f.stats.truncated).not.toBeNull();
    expect(warnings[0]).toMatch(/record 2 is cut short/);

    const bad = join(dir, 'bad.bin');
    const damaged = Buffer.from(good);
    damaged[BINARY_MAGIC.length + 1] = 31; // no value has tag 31: where the record starts
    writeFileSync(bad, damaged);
    await expect(async () => {
      for await (const _ of readHistory(bad)) void _;
    }).rejects.toThrow(PaystormError);
  });

  it('reads gzip members written one per batch, and NDJSON inside gzip', async () => {
    const records: HistoryRecord[] = Array.from({ length: 3000 }, (_, i) => ({ v: 1, kind: 'end', tEnd: i, wall: i, complete: true, reason: `r${i}`, requests: i, dropped: 0 }) as HistoryRecord);
    for (const name of ['small-batches.bin.gz', 'h.ndjson.gz', 'h.ndjson', 'h.bin']) {
      const path = join(dir, name);
      const w = new HistoryWriter({ path, batchBytes: 4096 });
      for (const r of records) w.write({ ...r });
      await w.close();
      const back: HistoryRecord[] = [];
      for await (const r of readHistory(path)) back.push(r);
      expect(back, name).toEqual(records);
    }
    const manual = join(dir, 'manual.ndjson.gz');
    writeFileSync(manual, Buffer.concat([gzipSync(JSON.stringify(records[0]) + '\n'), gzipSync(JSON.stringify(records[1]) + '\n')]));
    const back: HistoryRecord[] = [];
    for await (const r of readHistory(manual)) back.push(r);
    expect(back).toEqual(records.slice(0, 2));
    expect(readFileSync(join(dir, 'h.ndjson'), 'utf8').split('\n')[0]).toBe(JSON.stringify(records[0]));
  });
  it('judges what a killed run left: a gzip member cut short ends the history with a warning, not an error', async () => {
    const path = join(dir, 'killed.bin.gz');
    const records: HistoryRecord[] = Array.from({ length: 2000 }, (_, i) => ({ v: 1, kind: 'end', tEnd: i, wall: i, complete: false, reason: `r${i}`, requests: i, dropped: 0 }) as HistoryRecord);
    const w = new HistoryWriter({ path, batchBytes: 8192 });
    for (const r of records) w.write({ ...r });
    await w.close();
    const whole = readFileSync(path);
    writeFileSync(path, whole.subarray(0, whole.length - 30));
    const warnings: string[] = [];
    const f = readHistory(path, { onWarning: (m) => warnings.push(m) });
    const back: HistoryRecord[] = [];
    for await (const r of f) back.push(r);
    expect(back.length).toBeGreaterThan(1000);
    expect(back.length).toBeLessThan(records.length);
    expect(back).toEqual(records.slice(0, back.length));
    expect(f.stats.truncated).not.toBeNull();
    expect(warnings.join('\n')).toMatch(/cut short/);
  });
  it('keeps numbers exact at the edges of what a double holds exactly, alone and as differences', () => {
    const big = 2 ** 53 - 1;
    const values = [big, -big, 2 ** 52 + 0.5, 4503599627370.495, -4503599627370.495, -7999999999999.999, 7999999999999.999, 1e21, 5e-324, 0.1, 123456789.123];
    const seq = [...values, ...values.reverse(), big, -big, big, 0, -big];
    const recs = seq.map((x, i) => ({ i, x, y: -x }));
    expect(roundTrip(recs)).toEqual(recs.map(viaJson));
  });

  it('reads frames split anywhere across reads', async () => {
    const path = join(dir, 'split.bin');
    const records: HistoryRecord[] = Array.from({ length: 300 }, (_, i) => ({ v: 1, kind: 'end', tEnd: i * 1.001, wall: 1795624388300.151 + i, complete: true, reason: 'x'.repeat(i % 300), requests: i, dropped: 0 }) as HistoryRecord);
    const w = new HistoryWriter({ path });
    for (const r of records) w.write({ ...r });
    await w.close();
    for (const chunkBytes of [1, 7, 64, 1000]) {
      const back: HistoryRecord[] = [];
      for await (const r of readHistory(path, { chunkBytes })) back.push(r);
      expect(back, `chunks of ${chunkBytes}`).toEqual(records);
    }
  });
  it('round-trips random JSON exactly as JSON does (seeded, 3,000 values in one stream)', () => {
    let s = 7;
    const rnd = () => {
      s = (s + 0x6d2b79f5) | 0;
      let x = Math.imul(s ^ (s >>> 15), 1 | s);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T,>(a: T[]) => a[Math.floor(rnd() * a.length)];
    const num = (): number =>
      pick([
        () => Math.floor(rnd() * 300),
        () => Math.floor((rnd() - 0.5) * 2 ** 53),
        () => Math.round((rnd() - 0.5) * 1e13) / 1000,
        () => Math.round((rnd() - 0.5) * 1.8e16) / 1000,
        () => (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20),
        () => pick([0, -0, NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE]),
      ])();
    const str = (): string => pick([() => pick(['pay_1', 'pay_2', 'succeeded', 'EUR', '']), () => String.fromCharCode(...Array.from({ length: Math.floor(rnd() * 20) }, () => Math.floor(rnd() * 0xd7ff))), () => 'x'.repeat(Math.floor(rnd() * 600))])();
    const keys = ['id', 'status', 'amount', 'a', 'b', 'metadata', '__proto__', 'toString', '0', '1e3'];
    const value = (depth: number): unknown => {
      const k = Math.floor(rnd() * (depth > 3 ? 4 : 7));
      if (k === 0) return num();
      if (k === 1) return str();
      if (k === 2) return pick([true, false, null]);
      if (k === 3) return undefined;
      if (k === 4) return Array.from({ length: Math.floor(rnd() * 5) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rnd() * 6); i > 0; i--) Object.defineProperty(o, pick(keys), { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
      return o;
    };
    const values = Array.from({ length: 3000 }, () => ({ seq: Math.floor(rnd() * 1e6), t: num(), body: value(0) }));
    expect(roundTrip(values)).toEqual(values.map(viaJson));
  });
});
