import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import { readHistory } from '../../src/history/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { endRec, err, ex, runRec } from '../oracle/fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'paystorm-oracle-'));
function file(name: string, lines: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n'));
  return p;
}
async function collect(it: AsyncIterable<HistoryRecord>): Promise<HistoryRecord[]> {
  const out: HistoryRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}
const probe = ex({ op: 'raw', status: 401, error: err('invalid_api_key'), sent: { auth: 'missing' } });

describe('readHistory', () => {
  it('streams every record of a well-formed file', async () => {
    const p = file('ok.ndjson', [JSON.stringify(runRec()), JSON.stringify(probe), JSON.stringify(endRec()), '']);
    const h = readHistory(p);
    const recs = await collect(h);
    expect(recs.map((r) => r.kind)).toEqual(['run', 'exchange', 'end']);
    expect(h.stats.truncated).toBeNull();
  });

  it('decodes non-ASCII text exactly (key labels with …, names with accents), with LF or CRLF line ends', async () => {
    const named = ex({ op: 'create', status: 201, sent: { cardMeta: { expMonth: 1, expYear: 2040, cvcLength: 3, holderName: 'Zoë Ünal 山田' } } });
    const p = file('utf8.ndjson', [JSON.stringify(runRec()), JSON.stringify(named), JSON.stringify(probe)].map((l, i) => (i === 1 ? l + '\r' : l)));
    const recs = await collect(readHistory(p));
    expect(recs[1].kind === 'exchange' && recs[1].key).toBe('m1/test/…aaaa');
    expect(recs[1].kind === 'exchange' && recs[1].sent.cardMeta?.holderName).toBe('Zoë Ünal 山田');
    expect(recs[2].kind === 'exchange' && recs[2].key).toBe('m1/test/…aaaa');
  });

  it('reads the same records whatever the read size (lines split across reads, multi-byte characters cut in half)', async () => {
    const named = ex({ op: 'create', status: 201, sent: { cardMeta: { expMonth: 1, expYear: 2040, cvcLength: 3, holderName: 'Zoë 山田' } } });
    const lines = [JSON.stringify(runRec()), JSON.stringify(probe), JSON.stringify(named), JSON.stringify(probe), JSON.stringify(endRec())];
    const p = file('chunks.ndjson', lines);
    const whole = await collect(readHistory(p));
    for (const chunkBytes of [7, 64, 333]) {
      const h = readHistory(p, { chunkBytes });
      expect(await collect(h)).toEqual(whole);
      expect(h.stats.truncated).toBeNull();
    }
    expect(whole).toHaveLength(5);
  });

  it('tolerates and reports a last line cut short by an interrupted run', async () => {
    const cut = JSON.stringify(probe).slice(0, 40);
    const warnings: string[] = [];
    const h = readHistory(file('cut.ndjson', [JSON.stringify(runRec()), JSON.stringify(probe), cut]), { onWarning: (m) => warnings.push(m) });
    const j = await judge(h, { only: ['auth-malformed-header'] });
    expect(j.records).toBe(2);
    expect(h.stats.truncated).toMatchObject({ line: 3 });
    expect(warnings[0]).toMatch(/cut\.ndjson:3: the last line is cut short/);
  });

  it('refuses a corrupt line that is not the last one, naming it', async () => {
    const p = file('corrupt.ndjson', [JSON.stringify(runRec()), '{"v":1,"kind":', JSON.stringify(probe)]);
    await expect(collect(readHistory(p))).rejects.toThrow(/corrupt\.ndjson:2: not valid JSON/);
  });

  it('refuses an unknown format version, naming the line and the version it reads', async () => {
    const p = file('v2.ndjson', [JSON.stringify({ ...runRec(), v: 2 })]);
    await expect(collect(readHistory(p))).rejects.toThrow(/v2\.ndjson:1: history format version 2 is not supported: this paystorm reads version 1/);
  });

  it('refuses an unknown record kind', async () => {
    const p = file('kind.ndjson', [JSON.stringify(runRec()), JSON.stringify({ v: 1, kind: 'metric' })]);
    await expect(collect(readHistory(p))).rejects.toThrow(/kind\.ndjson:2: unknown record kind "metric"/);
  });

  it('validates the first records in full against the v1 schema', async () => {
    const bad = { ...probe, tStart: 'soon' };
    const p = file('schema.ndjson', [JSON.stringify(runRec()), JSON.stringify(bad)]);
    await expect(collect(readHistory(p))).rejects.toThrow(/schema\.ndjson:2: exchange record does not match history v1: tStart/);
  });

  it('names a missing file and what to pass', async () => {
    await expect(collect(readHistory(join(dir, 'nope.ndjson')))).rejects.toThrow(/no such history file/);
  });
});
