/**
 * Streams a history.ndjson file record by record. Every line is checked for its
 * format version and kind; the first lines, and every run, fault and end record,
 * are validated in full against the v1 schema (validating all of a million
 * exchanges would cost more than judging them). A last line cut short by an
 * interrupted run is tolerated and reported in `stats.truncated`; a bad line
 * anywhere else is an error naming the line.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { EXIT, HISTORY_VERSION, PaystormError, historyRecordSchema, type HistoryRecord } from '../spec/index.ts';

const KINDS = new Set(['run', 'exchange', 'webhook', 'fault', 'end']);
/** Lines validated in full with the zod schema; later exchange and webhook lines get the cheap check only. */
export const FULLY_VALIDATED_LINES = 2_000;

export interface HistoryReadStats {
  lines: number;
  records: number;
  /** The last line, when it was cut short (an interrupted run). */
  truncated: { line: number; text: string } | null;
}

export interface ReadHistoryOptions {
  fullyValidatedLines?: number;
  /** Told about a tolerated truncated last line. */
  onWarning?: (message: string) => void;
}

function fail(path: string, line: number, what: string): never {
  throw new PaystormError(`${path}:${line}: ${what}`, EXIT.usage, 'history');
}

export class HistoryFile implements AsyncIterable<HistoryRecord> {
  readonly stats: HistoryReadStats = { lines: 0, records: 0, truncated: null };

  constructor(
    readonly path: string,
    private readonly opts: ReadHistoryOptions = {},
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<HistoryRecord> {
    const full = this.opts.fullyValidatedLines ?? FULLY_VALIDATED_LINES;
    const input = createReadStream(this.path, { encoding: 'utf8', highWaterMark: 1 << 20 });
    const lines = createInterface({ input, crlfDelay: Infinity });
    // A line that did not parse: fatal unless it turns out to be the last one.
    let pending: { line: number; text: string } | null = null;
    let n = 0;
    try {
      for await (const text of lines) {
        n++;
        if (text.length === 0 || /^\s*$/.test(text)) continue;
        if (pending) fail(this.path, pending.line, `not valid JSON (${pending.text.slice(0, 60)}…), and it is not the last line, so the file is corrupt rather than cut short`);
        let obj: unknown;
        try {
          obj = JSON.parse(text);
        } catch {
          pending = { line: n, text };
          continue;
        }
        this.stats.lines = n;
        yield this.check(obj, n, n <= full);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new PaystormError(`${this.path}: no such history file. Pass the history.ndjson of a run (reports/<run>/history.ndjson).`, EXIT.usage, 'history');
      throw e;
    }
    this.stats.lines = n;
    if (pending) {
      this.stats.truncated = { line: pending.line, text: pending.text.slice(0, 120) };
      this.opts.onWarning?.(`${this.path}:${pending.line}: the last line is cut short (an interrupted run?); judged the ${this.stats.records} complete records before it`);
    }
  }

  private check(obj: unknown, line: number, fully: boolean): HistoryRecord {
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail(this.path, line, 'not a history record (expected a JSON object)');
    const rec = obj as { v?: unknown; kind?: unknown };
    if (rec.v !== HISTORY_VERSION) {
      fail(this.path, line, `history format version ${JSON.stringify(rec.v)} is not supported: this paystorm reads version ${HISTORY_VERSION} ("v":${HISTORY_VERSION}). Judge it with the paystorm that wrote it, or rerun.`);
    }
    if (typeof rec.kind !== 'string' || !KINDS.has(rec.kind)) {
      fail(this.path, line, `unknown record kind ${JSON.stringify(rec.kind)} (history v${HISTORY_VERSION} has run, exchange, webhook, fault, end)`);
    }
    if (fully || (rec.kind !== 'exchange' && rec.kind !== 'webhook')) {
      const r = historyRecordSchema.safeParse(obj);
      if (!r.success) {
        const issue = r.error.issues[0];
        fail(this.path, line, `${rec.kind} record does not match history v${HISTORY_VERSION}: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
      }
    }
    this.stats.records++;
    return obj as HistoryRecord;
  }
}

export function readHistory(path: string, opts: ReadHistoryOptions = {}): HistoryFile {
  return new HistoryFile(path, opts);
}
