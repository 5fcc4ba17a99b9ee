/**
 * Is this file a paystorm history at all? `check` and `report` ask before judging, so an
 * empty file or another tool's JSON gets one sentence naming what the file looks like and
 * what was expected (exit 3), and nothing is written.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { HISTORY_VERSION } from './version.ts';
import { BINARY_MAGIC } from './codec.ts';

const EXPECTED = `expected a paystorm history: the history.bin.gz of a run (reports/<run-id>/history.bin.gz), or NDJSON, one record a line, the first {"v":${HISTORY_VERSION},"kind":"run",...}`;
/** Files up to this size are read whole to tell a JSON document from a broken history. */
const WHOLE_JSON_MAX_BYTES = 32 * 1024 * 1024;

function describeJson(v: unknown): string {
  if (Array.isArray(v)) return `a JSON array of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (v === null || typeof v !== 'object') return `a JSON ${v === null ? 'null' : typeof v}`;
  const keys = Object.keys(v);
  return keys.length ? `a JSON object with keys ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', ...' : ''}` : 'an empty JSON object';
}

/**
 * What the file looks like when it is plainly not a history (empty, another tool's JSON, not
 * JSON): said up front, so `check` and `report` judge and write nothing. Deeper damage is
 * found, line by line, by readHistory.
 */
export function notAHistory(path: string): string | null {
  const st = statSync(path);
  if (!st.isFile()) return `not a file (${st.isDirectory() ? 'a directory' : 'a special file'}); ${EXPECTED}.`;
  const size = st.size;
  const fd = openSync(path, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(Math.min(size, 64 * 1024));
    const n = readSync(fd, buf, 0, buf.length, 0);
    let bytes = buf.subarray(0, n);
    if (n >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
      // gzip: look at what it holds (a start is enough; a cut-off member still gives its first bytes).
      try {
        bytes = gunzipSync(bytes, { finishFlush: 2 /* Z_SYNC_FLUSH */ });
      } catch {
        return `the file starts as gzip but does not decompress, so it is damaged or not a paystorm history; ${EXPECTED}.`;
      }
    }
    if (bytes.subarray(0, BINARY_MAGIC.length).equals(BINARY_MAGIC)) return null;
    head = bytes.toString('utf8');
  } finally {
    closeSync(fd);
  }
  if (head.trim() === '') {
    return `the file is empty${size ? ' (only white space)' : ''}: there is nothing to judge (a run that never started writes no history); ${EXPECTED}.`;
  }
  const firstLine = head.trimStart().split('\n', 1)[0].trim();
  let first: unknown;
  try {
    first = JSON.parse(firstLine);
  } catch {
    if (size <= WHOLE_JSON_MAX_BYTES) {
      try {
        const whole: unknown = JSON.parse(readFileSync(path, 'utf8'));
        return `the file is one JSON document (${describeJson(whole)}), not a paystorm history; ${EXPECTED}.`;
      } catch {
        // Not JSON at all.
      }
    }
    // A first line cut short with nothing after it: readHistory tolerates and reports it.
    if (!head.includes('\n') && firstLine.startsWith(`{"v":`)) return null;
    return `the first line is not JSON (it starts ${JSON.stringify(firstLine.slice(0, 40))}), so this is not a paystorm history; ${EXPECTED}.`;
  }
  const rec = first as { v?: unknown; kind?: unknown } | null;
  if (rec === null || typeof rec !== 'object' || Array.isArray(rec) || (rec.v === undefined && rec.kind === undefined)) {
    return `the first line is ${describeJson(first)}, not a paystorm history record; ${EXPECTED}.`;
  }
  return null;
}
