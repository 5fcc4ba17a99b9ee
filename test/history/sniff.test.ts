/** Telling a paystorm history from what is plainly not one, before judging (check, report). */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { notAHistory } from '../../src/history/sniff.ts';
import { BINARY_MAGIC, RecordEncoder } from '../../src/history/codec.ts';
import { historyFileOf } from '../../src/cli/judge-run.ts';
import { EXIT, PaystormError } from '../../src/spec/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'paystorm-history-file-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('notAHistory', () => {
  it('names what the file looks like and what was expected', () => {
    expect(notAHistory(file('empty.ndjson', ''))).toMatch(/^the file is empty: there is nothing to judge.*expected a paystorm history: the history.bin.gz of a run \(reports\/<run-id>\/history.bin.gz\), or NDJSON, one record a line, the first \{"v":1,"kind":"run"/);
    expect(notAHistory(file('blank.ndjson', '\n  \n'))).toMatch(/^the file is empty \(only white space\)/);
    expect(notAHistory(file('pkg.json', JSON.stringify({ name: 'x', version: '1', scripts: {} }, null, 2)))).toMatch(/^the file is one JSON document \(a JSON object with keys name, version, scripts\), not a paystorm history/);
    expect(notAHistory(file('arr.json', '[\n1,\n2\n]'))).toMatch(/one JSON document \(a JSON array of 2 items\)/);
    expect(notAHistory(file('other.ndjson', '{"level":"info","msg":"hi"}\n{"level":"warn"}\n'))).toMatch(/^the first line is a JSON object with keys level, msg, not a paystorm history record/);
    expect(notAHistory(file('text.log', 'GET / 200\nGET /x 404\n'))).toMatch(/^the first line is not JSON \(it starts "GET \/ 200"\)/);
    const sub = join(dir, 'adir');
    mkdirSync(sub);
    expect(notAHistory(sub)).toMatch(/^not a file \(a directory\)/);
  });
  it('looks inside gzip: a binary history or gzipped NDJSON passes, gzipped junk or damaged gzip is named', () => {
    const bin = join(dir, 'h.bin.gz');
    writeFileSync(bin, gzipSync(Buffer.concat([BINARY_MAGIC, new RecordEncoder().encode({ v: 1, kind: 'end' })])));
    expect(notAHistory(bin)).toBeNull();
    const nd = join(dir, 'h.ndjson.gz');
    writeFileSync(nd, gzipSync('{"v":1,"kind":"run","runId":"x"}\n'));
    expect(notAHistory(nd)).toBeNull();
    const junk = join(dir, 'junk.gz');
    writeFileSync(junk, gzipSync('GET / 200\n'));
    expect(notAHistory(junk)).toMatch(/^the first line is not JSON \(it starts "GET \/ 200"\)/);
    const damaged = join(dir, 'damaged.gz');
    writeFileSync(damaged, Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.alloc(40, 0xff)]));
    expect(notAHistory(damaged)).toMatch(/starts as gzip but does not decompress/);
  });
  it('lets a history through, even one cut short in its first line (readHistory reports that)', () => {
    expect(notAHistory(file('ok.ndjson', '{"v":1,"kind":"run","runId":"x"}\n{"v":1,"kind":"end"}\n'))).toBeNull();
    expect(notAHistory(file('cut.ndjson', '{"v":1,"kind":"run","runI'))).toBeNull();
    // Another version is a history too: readHistory names the version it reads.
    expect(notAHistory(file('v2.ndjson', '{"v":2,"kind":"run"}\n'))).toBeNull();
  });
  it('historyFileOf refuses with exit 3 and the file path', () => {
    const p = file('empty2.ndjson', '');
    try {
      historyFileOf(p);
      throw new Error('expected a refusal');
    } catch (e) {
      expect(e).toBeInstanceOf(PaystormError);
      expect((e as PaystormError).exitCode).toBe(EXIT.usage);
      expect((e as PaystormError).message).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: the file is empty`));
    }
  });
});
