/**
 * How far a judge of a history file has got (`paystorm check`, `report`): a soak's history takes
 * minutes to judge (16M records, about two hours at 2,000 requests a second, took 547 s here), and
 * a command silent for that long looks hung. The judge thread counts the records it judged and
 * the file's bytes read (for k6 output, the main thread counts the lines it read and hands on);
 * every so often the command prints one line to stderr with what is left.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';

/** The first line after this long (shorter judgements print none), then one each as long again (ms). */
export const JUDGE_PROGRESS_EVERY_MS = 20_000;

export interface JudgeProgressReport {
  records: number;
  /** Bytes of the file read so far (compressed, for history.bin.gz): a little ahead of the judging. */
  bytesRead: number;
  /** The file's size when the judging started. */
  fileBytes: number;
  elapsedMs: number;
}

/** Counts what was judged; says so (`report`) once `everyMs` has passed since the start or the last time it said. */
export class JudgeProgress {
  private records = 0;
  private readonly startMs: number;
  private lastMs: number;

  constructor(
    private readonly report: (p: JudgeProgressReport) => void,
    private readonly fileBytes: number,
    private readonly bytesRead: () => number,
    private readonly everyMs = JUDGE_PROGRESS_EVERY_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startMs = this.lastMs = now();
  }

  /** `n` more records judged. */
  judged(n: number): void {
    this.records += n;
    const t = this.now();
    if (t - this.lastMs < this.everyMs) return;
    this.lastMs = t;
    this.report({ records: this.records, bytesRead: Math.min(this.bytesRead(), this.fileBytes), fileBytes: this.fileBytes, elapsedMs: t - this.startMs });
  }
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The line the command prints: records (or `what`: k6 output's lines) so far, the share of the file read, and about how long the rest takes to read and judge at this pace. */
export function judgeProgressLine(p: JudgeProgressReport, file: string, what = 'records'): string {
  const done = `judging ${file}: ${p.records.toLocaleString('en')} ${what} in ${duration(p.elapsedMs)}`;
  if (p.fileBytes <= 0 || p.bytesRead <= 0) return done;
  const share = p.bytesRead / p.fileBytes;
  const left = share >= 1 ? 'the file is read; the invariants conclude' : `about ${duration((p.elapsedMs * (1 - share)) / share)} left to read and judge the rest`;
  return `${done}, ${Math.floor(share * 100)}% of the file; ${left}`;
}

/** The file's size in bytes; 0 when it cannot be read (the progress then says no share). */
export function fileSizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * k6 output read (and judged on the way) on the main thread: told the lines read and the file's
 * bytes read after each chunk, it prints a progress line every so often, as a history file's judge does.
 */
export function k6ReadProgress(path: string, everyMs?: number, stderr: (text: string) => void = (t) => process.stderr.write(t)): (lines: number, bytesRead: number) => void {
  let bytes = 0;
  let seen = 0;
  const progress = new JudgeProgress((p) => stderr(`paystorm: ${judgeProgressLine(p, basename(path), 'lines of k6 output')}\n`), fileSizeOf(path), () => bytes, everyMs);
  return (lines, bytesRead) => {
    bytes = bytesRead;
    progress.judged(lines - seen);
    seen = lines;
  };
}
