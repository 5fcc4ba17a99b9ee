/**
 * How a history file is encoded, from its name: `*.ndjson` is one JSON record a line (what
 * k6 conversion and `merge` write, and what tests read); `*.bin.gz`, what `paystorm run`
 * writes, is the compact binary records of src/history/codec.ts, gzip-compressed. Readers do
 * not trust the name: they look at the bytes (src/history/reader.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The history file of a run directory, as `paystorm run` writes it. */
export const HISTORY_FILE = 'history.bin.gz';
/** Names a run directory's history may have, newest form first (runs of older paystorms wrote NDJSON). */
export const HISTORY_FILES = [HISTORY_FILE, 'history.ndjson', 'history.ndjson.gz'] as const;

export interface HistoryEncoding {
  records: 'ndjson' | 'binary';
  gzip: boolean;
}

export function encodingOf(path: string): HistoryEncoding {
  const gzip = path.endsWith('.gz');
  const bare = gzip ? path.slice(0, -3) : path;
  return { records: bare.endsWith('.ndjson') || bare.endsWith('.jsonl') ? 'ndjson' : 'binary', gzip };
}

/** The history file in a run directory, or null when it holds none. */
export function historyFileIn(dir: string): string | null {
  for (const name of HISTORY_FILES) if (existsSync(join(dir, name))) return join(dir, name);
  return null;
}
