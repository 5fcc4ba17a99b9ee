/**
 * History size: runs the default suite against the embedded reference service (`paystorm run`,
 * what `npm start` does) into a temp directory, then writes the same records again in each
 * encoding with the history writer and prints bytes per record and per exchange side by side.
 * The bar: at most 150 bytes per exchange in the encoding runs write (history.bin.gz).
 *
 *   npx tsx bench/history-size.ts [--from reports/<run-id>]   (--from: measure a saved run instead)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HISTORY_FILE, HistoryWriter, historyFileIn, readHistory, type HistoryRecord } from '../src/history/index.ts';

const root = join(fileURLToPath(import.meta.url), '../..');
const fromArg = process.argv.indexOf('--from');
const tmp = mkdtempSync(join(tmpdir(), 'paystorm-size-'));
try {
  let runDir: string;
  if (fromArg >= 0) runDir = process.argv[fromArg + 1];
  else {
    const out = join(tmp, 'reports');
    const r = spawnSync(process.execPath, [join(root, 'bin/paystorm.js'), 'run', '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0 && r.status !== 1 && r.status !== 2) throw new Error(`paystorm run exited ${r.status}`);
    runDir = join(out, readdirSync(out).find((d) => d !== 'latest')!);
  }
  const source = historyFileIn(runDir);
  if (source === null) throw new Error(`${runDir} holds no history`);
  const records: HistoryRecord[] = [];
  for await (const r of readHistory(source)) records.push(r);
  const exchanges = records.filter((r) => r.kind === 'exchange').length;
  console.log(`${records.length} records, ${exchanges} exchanges (${source})`);
  for (const name of [HISTORY_FILE, 'history.bin', 'history.ndjson.gz', 'history.ndjson']) {
    const path = join(tmp, name);
    const w = new HistoryWriter({ path });
    // The writer renumbers seq as it assigns it; the records keep theirs in the same order.
    for (const r of records) w.write(structuredClone(r));
    await w.close();
    const size = statSync(path).size;
    console.log(`${name.padEnd(18)} ${String(size).padStart(9)} bytes  ${(size / records.length).toFixed(1).padStart(7)} B/record  ${(size / exchanges).toFixed(1).padStart(7)} B/exchange`);
  }
  const bin = statSync(join(tmp, HISTORY_FILE)).size / exchanges;
  console.log(bin <= 150 ? `bar (<= 150 B/exchange in ${HISTORY_FILE}): met` : `bar (<= 150 B/exchange in ${HISTORY_FILE}): MISSED`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
