/**
 * Live progress. On a TTY: one line redrawn in place (elapsed/total, current
 * rate, errors, 429s, dropped, violations). In CI (no TTY, or CI=true): a plain
 * line every few seconds, so logs stay readable.
 */
import type { HistoryRecord } from '../spec/index.ts';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  clock: { now(): number };
  stream?: ProgressStream;
  /** Planned run length (ms), shown as elapsed/total; the max-duration cap when unknown. */
  totalMs?: number;
  /** Force plain lines (default: !stream.isTTY || CI=true). */
  plain?: boolean;
  /** Redraw interval on a TTY (default 250 ms). */
  ttyIntervalMs?: number;
  /** Plain-line interval (default 5000 ms). */
  plainIntervalMs?: number;
}

export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function fmtDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export class Progress {
  requests = 0;
  /** No response, or a 5xx. */
  errors = 0;
  rateLimited = 0;
  dropped = 0;
  /** Bumped by the live oracle. */
  violations = 0;
  webhooks = 0;
  readonly plain: boolean;
  private readonly stream: ProgressStream;
  private timer: NodeJS.Timeout | null = null;
  private window: { t: number; n: number }[] = [];
  private drawn = false;

  constructor(private readonly opts: ProgressOptions) {
    this.stream = opts.stream ?? process.stderr;
    this.plain = opts.plain ?? (!this.stream.isTTY || isCi());
  }

  /** History listener: counts what the line shows. */
  readonly onRecord = (r: HistoryRecord): void => {
    if (r.kind === 'exchange') {
      this.requests++;
      if (r.status === 429) this.rateLimited++;
      else if (r.failure !== null || r.status >= 500) this.errors++;
    } else if (r.kind === 'webhook') this.webhooks++;
  };

  addViolations(n = 1): void {
    this.violations += n;
  }

  addDropped(n: number): void {
    this.dropped += n;
  }

  /** Requests per second over the last few seconds. */
  currentRate(): number {
    const now = this.opts.clock.now();
    this.window.push({ t: now, n: this.requests });
    while (this.window.length > 2 && now - this.window[1].t >= 3000) this.window.shift();
    const first = this.window[0];
    const dt = now - first.t;
    return dt > 0 ? ((this.requests - first.n) * 1000) / dt : 0;
  }

  line(): string {
    const now = this.opts.clock.now();
    const total = this.opts.totalMs !== undefined ? `/${fmtDuration(this.opts.totalMs)}` : '';
    return (
      `paystorm ${fmtDuration(now)}${total}  ${this.requests} req  ${Math.round(this.currentRate())}/s  ` +
      `errors ${this.errors}  429s ${this.rateLimited}  dropped ${this.dropped}  violations ${this.violations}`
    );
  }

  start(): void {
    if (this.timer) return;
    const every = this.plain ? (this.opts.plainIntervalMs ?? 5000) : (this.opts.ttyIntervalMs ?? 250);
    this.timer = setInterval(() => this.draw(), every);
    this.timer.unref();
  }

  private draw(): void {
    if (this.plain) this.stream.write(this.line() + '\n');
    else {
      this.stream.write('\r\x1b[2K' + this.line());
      this.drawn = true;
    }
  }

  /** Prints a message without tearing the live line. */
  log(message: string): void {
    if (!this.plain && this.drawn) this.stream.write('\r\x1b[2K');
    this.stream.write(message + '\n');
    if (!this.plain && this.timer) this.draw();
  }

  /** Stops and prints the final line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.plain) this.stream.write(this.line() + '\n');
    else this.stream.write('\r\x1b[2K' + this.line() + '\n');
  }
}
