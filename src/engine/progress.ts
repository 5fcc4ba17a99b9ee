/**
 * Live progress. On a TTY: one line redrawn in place (elapsed/planned, the scenario running,
 * current rate, live p99, errors, 429s, dropped, violations, and the phase: what the scenario
 * waits for and how long). In CI (no TTY, or CI=true): a plain line every few seconds, so logs
 * stay readable.
 */
import type { HistoryRecord } from '../history/index.ts';
import type { LiveViolation, LiveWatcher } from './live.ts';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** Terminal width; a TTY line longer than it would wrap, and \r could not redraw it in place. */
  columns?: number;
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

/** Latencies kept for the live p99 (the last few seconds, at most this many). */
const LIVE_LATENCY_MAX = 4096;
const LIVE_WINDOW_MS = 3000;

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
  /** Confirmed violations the live oracle reported. */
  violations = 0;
  /** The invariant of the first one, named on the line. */
  firstViolation: string | null = null;
  webhooks = 0;
  readonly plain: boolean;
  private readonly stream: ProgressStream;
  private timer: NodeJS.Timeout | null = null;
  private window: { t: number; n: number }[] = [];
  private drawn = false;
  private judgeHeld = false;
  private scenario: { name: string; index: number; total: number } | null = null;
  private phaseNote: { note: string; until: number | null } | null = null;
  /** Recent (end time, latency ms) of answered requests, for the live p99. */
  private latencies: { t: number; ms: number }[] = [];

  constructor(private readonly opts: ProgressOptions) {
    this.stream = opts.stream ?? process.stderr;
    this.plain = opts.plain ?? (!this.stream.isTTY || isCi());
  }

  /** History listener: counts what the line shows. */
  readonly onRecord = (r: HistoryRecord): void => {
    if (r.kind === 'exchange') {
      this.requests++;
      if (r.status !== 0) {
        this.latencies.push({ t: r.tEnd, ms: r.tEnd - r.tStart });
        if (this.latencies.length > LIVE_LATENCY_MAX) this.latencies.splice(0, this.latencies.length - LIVE_LATENCY_MAX);
      }
      if (r.status === 429) this.rateLimited++;
      else if (r.failure !== null || r.status >= 500) this.errors++;
    } else if (r.kind === 'webhook') this.webhooks++;
  };

  /** A violation the live oracle confirmed. */
  addViolation(v: Pick<LiveViolation, 'invariant'>): void {
    this.violations++;
    this.firstViolation ??= v.invariant;
  }

  /** The live judge holds off while the load saturates the machine: the violations count may lag. */
  setJudgeHeld(held: boolean): void {
    this.judgeHeld = held;
  }

  /** This line as a watcher of a LiveRun. */
  watcher(): LiveWatcher {
    return {
      record: this.onRecord,
      dropped: (n) => this.addDropped(n),
      scenario: (name, index, total) => this.setScenario(name, index, total),
      phase: (note, ms) => this.phase(note, ms),
      violation: (v) => this.addViolation(v),
      judging: (held) => this.setJudgeHeld(held),
    };
  }

  addDropped(n: number): void {
    this.dropped += n;
  }

  /** The scenario now running (the engine calls this as each starts); clears the phase. */
  setScenario(name: string, index: number, total: number): void {
    this.scenario = { name, index, total };
    this.phaseNote = null;
  }

  /** What the scenario is doing or waiting for, for `ms` if given (then it clears itself); null clears. */
  phase(note: string | null, ms?: number): void {
    this.phaseNote = note === null ? null : { note, until: ms !== undefined && ms > 0 ? this.opts.clock.now() + ms : null };
    if (!this.plain && this.timer) this.draw();
  }

  /** Requests per second over the last few seconds (since start() for the first ones, never a fake 0/s). */
  currentRate(): number {
    const now = this.opts.clock.now();
    this.window.push({ t: now, n: this.requests });
    while (this.window.length > 2 && now - this.window[1].t >= LIVE_WINDOW_MS) this.window.shift();
    const first = this.window[0];
    const dt = now - first.t;
    if (dt > 0) return ((this.requests - first.n) * 1000) / dt;
    // Nothing to difference against yet: the mean since the run started.
    return now > 0 ? (this.requests * 1000) / now : 0;
  }

  /** p99 latency (ms) of the requests answered in the last few seconds; null when none. */
  liveP99(): number | null {
    const now = this.opts.clock.now();
    let i = 0;
    while (i < this.latencies.length && this.latencies[i].t < now - LIVE_WINDOW_MS) i++;
    if (i > 0) this.latencies.splice(0, i);
    if (this.latencies.length === 0) return null;
    const sorted = this.latencies.map((x) => x.ms).sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  }

  /** The phase note with its time left, or null when none (or it ran out). */
  private phaseText(now: number): string | null {
    const p = this.phaseNote;
    if (!p) return null;
    if (p.until === null) return p.note;
    const left = p.until - now;
    if (left <= 0) {
      this.phaseNote = null;
      return null;
    }
    return `${p.note} (${(left / 1000).toFixed(1)}s left)`;
  }

  line(): string {
    const now = this.opts.clock.now();
    const planned = this.opts.totalMs;
    let elapsed = fmtDuration(now);
    if (planned !== undefined) {
      // Past the plan, say so and why (the scenario running and what it waits for), not just "30s/20s".
      elapsed += now > planned + 1000 ? ` (planned ${fmtDuration(planned)}, over by ${fmtDuration(now - planned)})` : `/${fmtDuration(planned)}`;
    }
    const sc = this.scenario ? `  ${this.scenario.name} ${this.scenario.index + 1}/${this.scenario.total}` : '';
    const p99 = this.liveP99();
    const phase = this.phaseText(now);
    return (
      `paystorm ${elapsed}${sc}  ${this.requests} req  ${Math.round(this.currentRate())}/s  p99 ${p99 === null ? '-' : `${p99 >= 100 ? Math.round(p99) : p99.toFixed(1)}ms`}  ` +
      `errors ${this.errors}  429s ${this.rateLimited}  dropped ${this.dropped}  violations ${this.violations}${this.firstViolation ? ` (first: ${this.firstViolation})` : ''}` +
      (this.judgeHeld ? ' (judge yielding to the saturated load)' : '') +
      (phase ? `  | ${phase}` : '')
    );
  }

  start(): void {
    if (this.timer) return;
    // The first tick differences against this, so it shows the real rate, not 0/s.
    this.window = [{ t: this.opts.clock.now(), n: this.requests }];
    const every = this.plain ? (this.opts.plainIntervalMs ?? 5000) : (this.opts.ttyIntervalMs ?? 250);
    this.timer = setInterval(() => this.draw(), every);
    this.timer.unref();
  }

  private draw(): void {
    if (this.plain) this.stream.write(this.line() + '\n');
    else {
      this.stream.write('\r\x1b[2K' + this.fit(this.line()));
      this.drawn = true;
    }
  }

  /** Cuts a TTY line to the terminal's width (the phase note, last, goes first), so it never wraps. */
  private fit(line: string): string {
    const cols = this.stream.columns;
    if (!cols || cols < 20 || line.length < cols) return line;
    return line.slice(0, cols - 2) + '…';
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
