/**
 * The k6 converter (src/history/k6.ts) on the real recordings: today's files convert to the same
 * records as before the compact encoding; the same requests written by the rebuilt scripts
 * (compact records, system tags cut to K6_SYSTEM_TAGS) convert to the same history; the lines
 * it reads without a whole JSON.parse give what a whole parse gives.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { convertK6, k6TimeMs } from '../../src/history/k6.ts';
import { lineChunks, PointBytes } from '../../src/history/k6-lines.ts';
import { encodeK6Record } from '../../src/history/k6-record-codec.ts';
import { K6_SYSTEM_TAGS } from '../../src/history/k6-tags.ts';
import type { ExchangeRecord, HistoryRecord } from '../../src/history/index.ts';
import { PaystormError } from '../../src/spec/index.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';

const SAMPLES = sharedPath('samples/k6/');
/** The real recordings these tests read (../shared/samples/k6; skipped with the reason when absent). */
const RECORDINGS = ['mixed-30s-clean', 'mixed-sigint-at-12s', 'idempotency-idem-no-inflight-lock', 'rate-limit-clean'].map((n) => `samples/k6/${n}.k6.json.gz`);
const dir = mkdtempSync(join(tmpdir(), 'paystorm-k6-convert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sampleText = (name: string) => gunzipSync(readFileSync(`${SAMPLES}${name}.k6.json.gz`)).toString('utf8');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const exchangesText = (records: HistoryRecord[]) =>
  records
    .filter((r) => r.kind === 'exchange')
    .map((r) => JSON.stringify(r))
    .join('\n');

/** Writes `text` as `<dir>/<sub>/<name>` (gzipped when the name ends in .gz): one basename, so run records compare. */
function fileOf(sub: string, name: string, text: string): string {
  const path = join(mkdtempSync(join(dir, `${sub}-`)), name);
  writeFileSync(path, name.endsWith('.gz') ? gzipSync(text) : text);
  return path;
}

/** The lines as the rebuilt scripts write them: tags cut to K6_SYSTEM_TAGS and `op`, records encoded compactly. */
function rebuilt(text: string): string {
  const keep = new Set<string>([...K6_SYSTEM_TAGS, 'op']);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const o = JSON.parse(line) as { type: string; data: { tags?: Record<string, string>; metadata?: Record<string, string> } };
      if (o.type !== 'Point') return line;
      if (o.data.tags) o.data.tags = Object.fromEntries(Object.entries(o.data.tags).filter(([k]) => keep.has(k)));
      const rec = o.data.metadata?.paystorm_record;
      if (rec !== undefined) o.data.metadata!.paystorm_record = encodeK6Record(JSON.parse(rec) as ExchangeRecord);
      return JSON.stringify(o);
    })
    .join('\n');
}

/**
 * What main 2dff10b's converter made of each recording (the recordings come from the scripts of
 * that commit): the exchange records' count and the sha256 of their NDJSON. A change of the
 * converter that moves any field of any exchange record shows here.
 */
const BEFORE: Record<string, { exchanges: number; sha256: string }> = {
  'mixed-30s-clean': { exchanges: 294, sha256: '905da2d3a1e67f27a95db349774aa4aa07bd30e05f82ed5fa3bffab9461d9214' },
  'mixed-sigint-at-12s': { exchanges: 139, sha256: '610d25e7b4ac6a92be67612a4217d51877840755adb22af0e1c2f13831c57ff7' },
  'idempotency-idem-no-inflight-lock': { exchanges: 110, sha256: '79a0423d793ac2f26b80f7142b18c0d3785b822d2e026a0304be2f33e10fa5a7' },
  'rate-limit-clean': { exchanges: 513, sha256: '974203bd3c2038b31e48a01bef3c920926b7c952b49e5c65224e2e0562fe7e2e' },
};

describeWithShared(RECORDINGS, 'k6 output of the real recordings', () => {
  it.each(Object.keys(BEFORE))('%s converts to the same exchange records as before', async (name) => {
    const { records } = await convertK6(`${SAMPLES}${name}.k6.json.gz`);
    const text = exchangesText(records);
    expect(records.filter((r) => r.kind === 'exchange')).toHaveLength(BEFORE[name].exchanges);
    expect(sha256(text)).toBe(BEFORE[name].sha256);
  });

  it.each(Object.keys(BEFORE))('%s written by the rebuilt scripts (compact records, fewer tags) converts to the same history and facts', async (name) => {
    const text = sampleText(name);
    const today = await convertK6(fileOf('today', 'run.k6.json.gz', text));
    const compact = rebuilt(text);
    expect(compact.length).toBeLessThan(text.length * 0.8);
    const after = await convertK6(fileOf('rebuilt', 'run.k6.json.gz', compact));
    expect(after.records.map((r) => JSON.stringify(r))).toEqual(today.records.map((r) => JSON.stringify(r)));
    // Requests by op and status, checks by name, scenarios, points and sums per metric: nothing read was cut.
    expect(after.facts).toEqual(today.facts);
  });

  it('reads every line the same whether it takes the quick way or a whole JSON.parse', async () => {
    const text = rebuilt(sampleText('mixed-30s-clean'));
    // A space after the brace: every line takes the whole parse.
    const slow = text.replace(/^\{"/gm, '{ "');
    const a = await convertK6(fileOf('quick', 'run.k6.json', text));
    const b = await convertK6(fileOf('slow', 'run.k6.json', slow));
    expect(a.records.map((r) => JSON.stringify(r))).toEqual(b.records.map((r) => JSON.stringify(r)));
    expect(a.facts).toEqual(b.facts);
  });

  it('reads awkward values and times as a whole parse does (or leaves them to it)', async () => {
    const values = ['0', '-0', '1.50', '0.000001', '123456789012345', '1234567890123456', '12345678.90123456', '1e-7', '2.5E+3', '-17.25', '9007199254740993'];
    const times = ['2026-11-28T12:45:06Z', '2026-11-28T12:45:06.1Z', '2026-11-28T12:45:06.123456789Z', '2026-11-28T12:45:07.000001+01:00', '2026-11-28T12:45:07.5+01:00', '2026-11-28T12:45:07.5-05:30'];
    const lines = values.flatMap((v, i) => [
      `{"metric":"m${i}","type":"Point","data":{"time":"${times[i % times.length]}","value":${v},"tags":{"scenario":"s${i % 3}"}}}`,
      `{"metric":"m${i}","type":"Point","data":{"time":"${times[(i + 1) % times.length]}","value":${v},"tags":{"check":"a {brace}","scenario":"s"}}}`,
    ]);
    const text = lines.join('\n');
    const a = await convertK6(fileOf('values', 'run.k6.json', text));
    const b = await convertK6(fileOf('values-slow', 'run.k6.json', text.replace(/^\{"/gm, '{ "')));
    expect(a.facts.sums).toEqual(b.facts.sums);
    for (const [k, v] of Object.entries(a.facts.sums)) expect(Object.is(v, b.facts.sums[k]), k).toBe(true);
    expect(a.records.map((r) => JSON.stringify(r))).toEqual(b.records.map((r) => JSON.stringify(r)));
    // Malformed numbers are refused either way.
    for (const v of ['01', '1.', '-', '.5', '+1']) {
      const bad = `${lines[0].replace(/"value":[^,]*/, `"value":${v}`)}\n${lines[1]}`;
      await expect(convertK6(fileOf('bad-value', 'run.k6.json', bad)), v).rejects.toThrow(/run\.k6\.json:1: not a JSON line/);
    }
  });

  it('the in-place reader reads a line with any one byte changed as a whole parse does, or leaves it to one (its parts are compared four bytes at a time)', () => {
    const lines = [
      '{"metric":"http_req_duration","type":"Point","data":{"time":"2030-01-01T00:00:00.014699028Z","value":13.963766,"tags":{"group":"","method":"POST","op":"create","scenario":"mixed","status":"201"}}}',
      '{"metric":"iterations","type":"Point","data":{"time":"2030-01-01T00:00:01Z","value":1,"tags":{"group":"","scenario":"mixed"}}}',
    ];
    let refused = 0;
    let read = 0;
    for (const line of lines) {
      for (let at = 0; at < line.length; at++) {
        for (const to of ['x', '"', '9']) {
          if (line[at] === to) continue;
          const changed = line.slice(0, at) + to + line.slice(at + 1);
          // Primed with the line as it was: the changed one is compared against what was seen last.
          const reader = new PointBytes(k6TimeMs, 'paystorm_exchange');
          expect(reader.read(Buffer.from(line), 0, line.length)).toBe(true);
          const buf = Buffer.from(changed);
          if (!reader.read(buf, 0, buf.length)) {
            refused++;
            continue;
          }
          read++;
          const whole = JSON.parse(changed) as { metric: string; data: { time: string; value: number; tags: Record<string, string> } };
          expect({ metric: reader.metric.name, timeMs: reader.timeMs, value: reader.value, tags: reader.tags.tags }, changed).toEqual({
            metric: whole.metric,
            timeMs: k6TimeMs(whole.data.time),
            value: whole.data.value,
            tags: whole.data.tags,
          });
        }
      }
    }
    // Both outcomes were exercised: changes the reader took, and changes it left to a whole parse.
    expect(read).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it('k6TimeMs reads times as the RFC 3339 pattern does, whatever it read last', () => {
    const reference = (t: string) => {
      const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(t);
      return m ? Date.parse(`${m[1]}${m[3]}`) + (m[2] ? Number(`0${m[2].slice(0, 7)}`) * 1000 : 0) : NaN;
    };
    const heads = ['2026-11-28T12:45:06', '2026-11-28T12:45:07', '2030-01-01T00:00:00'];
    const zones = ['Z', '+01:00', '-05:30'];
    let n = 0;
    for (let i = 0; i < 20_000; i++) {
      const head = heads[(i >> 4) % 3];
      const zone = zones[(i >> 7) % 3];
      const digits = String((i * 7_919_993) % 1e9).padStart(9, '0').slice(0, 1 + (i % 9));
      const t = i % 97 === 0 ? `${head}${zone}` : i % 89 === 0 ? `${head}.${zone}` : i % 83 === 0 ? `${head}.12x4${zone}` : `${head}.${digits}${zone}`;
      expect(Object.is(k6TimeMs(t), reference(t)), t).toBe(true);
      n++;
    }
    expect(n).toBe(20_000);
  });

  it('refuses a damaged tag set or compact record, naming the line (exit 3)', async () => {
    const lines = rebuilt(sampleText('mixed-30s-clean')).split('\n');
    const i = lines.findIndex((l) => l.startsWith('{"metric":"http_req_waiting"'));
    const badTags = [...lines];
    badTags[i] = badTags[i].replace('"tags":{"', '"tags":{,"');
    await expect(convertK6(fileOf('bad-tags', 'run.k6.json', badTags.join('\n')))).rejects.toThrow(new RegExp(`run\\.k6\\.json:${i + 1}: not a JSON line`));
    const j = lines.findIndex((l) => l.includes('"paystorm_record"'));
    const badRecord = [...lines];
    badRecord[j] = badRecord[j].replace('"paystorm_record":"[2,', '"paystorm_record":"[7,');
    const err = await convertK6(fileOf('bad-record', 'run.k6.json', badRecord.join('\n'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(3);
    expect((err as Error).message).toMatch(new RegExp(`run\\.k6\\.json:${j + 1}: the paystorm_record tag is not a JSON or compact exchange record \\(encoding 7 is not one this paystorm reads`));
  });

  it.each(Object.keys(BEFORE))('%s: the in-place byte reader gives the records and facts a JSON.parse of every line gives (as recorded and as the rebuilt scripts write it)', async (name) => {
    for (const text of [sampleText(name), rebuilt(sampleText(name))]) {
      const file = fileOf('both-ways', 'run.k6.json.gz', text);
      const quick = await convertK6(file);
      const whole = await convertK6(file, { parseEveryLine: true });
      expect(quick.records.map((r) => JSON.stringify(r))).toEqual(whole.records.map((r) => JSON.stringify(r)));
      expect(quick.facts).toEqual(whole.facts);
      expect(quick.records.filter((r) => r.kind === 'exchange')).toHaveLength(BEFORE[name].exchanges);
    }
  });

  it('refuses a record literal that is no JSON string, and a compact record with a field of the wrong type, naming the line and the field (exit 3)', async () => {
    const lines = rebuilt(sampleText('mixed-30s-clean')).split('\n');
    const j = lines.findIndex((l) => l.includes('"paystorm_record":"[2,'));
    // A bad escape inside the record's string: not JSON at all.
    const badEscape = [...lines];
    badEscape[j] = badEscape[j].replace('"paystorm_record":"[2,', '"paystorm_record":"[2,\\q');
    await expect(convertK6(fileOf('bad-escape', 'run.k6.json.gz', badEscape.join('\n')))).rejects.toThrow(new RegExp(`run\\.k6\\.json\\.gz:${j + 1}: not a JSON line`));
    // A well-formed compact record whose operation is a number: the schema refuses it, naming op.
    const badOp = [...lines];
    badOp[j] = badOp[j].replace(/"paystorm_record":"\[2,\\"[a-z_]+\\"/, '"paystorm_record":"[2,42');
    expect(badOp[j]).not.toBe(lines[j]);
    const err = await convertK6(fileOf('bad-op', 'run.k6.json.gz', badOp.join('\n'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(3);
    expect((err as Error).message).toMatch(new RegExp(`run\\.k6\\.json\\.gz:${j + 1}: the paystorm_record tag is not a history exchange record \\(op: `));
  });

  it('lineChunks gives whole lines whatever the read size (lines straddling reads, a last line without a newline)', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat((i * 37) % 200)}…"}`);
    const text = `${lines.join('\n')}\n${'{"last":true}'}`;
    for (const gz of [false, true]) {
      const file = fileOf('chunks', gz ? 'lines.json.gz' : 'lines.json', text);
      for (const size of [7, 64, 1 << 20]) {
        const got: string[] = [];
        for await (const chunk of lineChunks(file, size)) {
          got.push(...chunk.toString('utf8').split('\n').filter((l, i, a) => i < a.length - 1 || l !== ''));
        }
        expect(got, `gzip ${gz}, ${size} bytes a read`).toEqual([...lines, '{"last":true}']);
      }
    }
  });
});
