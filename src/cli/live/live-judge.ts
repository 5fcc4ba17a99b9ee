/**
 * The live judge: the oracle's `check` on a thread of its own, following the history file as the
 * writer appends to it (src/history/reader.ts `follow`). Violations reach the run as checks confirm
 * them; when the run closes the history, the judge reads what is left and gives the summary: the
 * run's verdict without reading the file again; asked between two batches, it gives its verdict so
 * far (a run's snapshot). `check`, `report` and `merge` judge on such a thread too, each within the
 * judge's memory limit (judge-memory.ts).
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../history/worker-script.ts';
import { PaystormError, type ExitCode, type Summary } from '../../spec/index.ts';
import type { FromJudge, JudgedViolation, JudgeWorkerData, JudgeWorkerOptions, K6ExchangeBatch, ToJudge } from './protocol.ts';
import { k6ExchangeOfText, type K6Follower } from '../../history/k6.ts';
import { lineText, unescapedInto } from '../../history/k6-lines.ts';
import { CheckFolds, checkResultOf, type CheckOptions, type CheckResult } from '../../oracle/check.ts';
import type { EndRecord, RunRecord } from '../../history/index.ts';
import type { Judgement } from '../../oracle/judge.ts';
import { holdFlag, LoadPacer } from './load-pacer.ts';
import { FOLLOW_MAX_HELD_MS } from '../../history/reader.ts';
import { defaultJudgeMemoryMb, isWorkerOutOfMemory, JudgeOutOfMemory } from './judge-memory.ts';
import type { JudgeProgressReport } from './judge-progress.ts';

export type { JudgedViolation, JudgeWorkerOptions };

/** The judge thread's script as the build inlined it into the compiled CLI (scripts/build.mjs); undefined when the sources run. */
declare const PAYSTORM_JUDGE_WORKER: string | undefined;

/** The judge thread's code as one script (worker-script.ts; esbuild, which it never uses, left out). */
export function judgeWorkerSource(): string {
  return workerScript(typeof PAYSTORM_JUDGE_WORKER === 'string' ? PAYSTORM_JUDGE_WORKER : undefined, fileURLToPath(new URL('./judge-worker.ts', import.meta.url)), {
    esbuild: fileURLToPath(new URL('./no-esbuild.ts', import.meta.url)),
  });
}

/** The k6 judge thread's young generation (MB); Node's default is 16 MB of semi-space (about 48 MB in all). */
const K6_JUDGE_YOUNG_MB = Number(process.env.PAYSTORM_K6_JUDGE_YOUNG_MB ?? 192);


export interface LiveJudgeHooks {
  /** The thread has loaded the oracle and is reading. */
  onReady?: () => void;
  onViolation?: (v: JudgedViolation) => void;
  onWarning?: (message: string) => void;
  /** `file`: how far the judging got (judge-progress.ts). */
  onProgress?: (p: JudgeProgressReport) => void;
  /** A k6 batch the thread decoded, handed back. */
  onRecycle?: (batch: K6ExchangeBatch) => void;
  /** The live judge holds off while the load saturates the machine (true), or judges as the run goes again (false). */
  onHold?: (held: boolean) => void;
  /** The verdict so far the thread was asked for (LiveJudge.snapshot). */
  onSnapshot?: (id: number, summary: Summary | null) => void;
  /** The thread failed (ran out of memory, say) before it was told the history is closed. */
  onFailed?: (e: Error) => void;
}

/**
 * Each scenario's default thresholds by name, as data a judge thread can be sent: for histories
 * whose run record names scenarios without their thresholds (they are taken from the code).
 */
export function scenarioThresholdsOf(scenarios: readonly { name: string; thresholds?: readonly string[] }[]): JudgeWorkerOptions['scenarioThresholds'] {
  return Object.fromEntries(scenarios.map((s) => [s.name, [...(s.thresholds ?? [])]]));
}

/**
 * One judge thread: resolves with the summary (the k6 mode: the judgement) it posts, rejects with
 * the error it posts or dies of (JudgeOutOfMemory at its heap limit, `data.memoryMb`).
 */
function startJudge(data: JudgeWorkerData & { mode: 'k6' }, hooks: LiveJudgeHooks): { worker: Worker; summary: Promise<Judgement> };
function startJudge(data: JudgeWorkerData, hooks: LiveJudgeHooks): { worker: Worker; summary: Promise<Summary> };
function startJudge(data: JudgeWorkerData, hooks: LiveJudgeHooks): { worker: Worker; summary: Promise<Summary | Judgement> } {
  // The k6 and merge judges allocate a record object per exchange at full speed: a larger young
  // generation spares them most of the scavenges a default-sized one makes.
  const memoryMb = data.memoryMb ?? defaultJudgeMemoryMb();
  const young = data.mode === 'k6' || data.mode === 'merge' ? { maxYoungGenerationSizeMb: K6_JUDGE_YOUNG_MB } : {};
  const worker = new Worker(judgeWorkerSource(), { eval: true, workerData: { ...data, memoryMb }, resourceLimits: { maxOldGenerationSizeMb: memoryMb, ...young } });
  const summary = new Promise<Summary | Judgement>((resolve, reject) => {
    worker.on('message', (m: FromJudge) => {
      if ('ready' in m) hooks.onReady?.();
      else if ('snapshot' in m) hooks.onSnapshot?.(m.snapshot.id, m.snapshot.summary);
      else if ('violation' in m) hooks.onViolation?.(m.violation);
      else if ('warning' in m) hooks.onWarning?.(m.warning);
      else if ('progress' in m) hooks.onProgress?.(m.progress);
      else if ('recycle' in m) hooks.onRecycle?.(m.recycle);
      else if ('summary' in m) resolve(m.summary);
      else if ('judgement' in m) resolve(m.judgement);
      else reject(m.exitCode !== null ? new PaystormError(m.error, m.exitCode as ExitCode) : new Error(`the judge failed: ${m.error}`));
    });
    worker.on('error', (e) => reject(isWorkerOutOfMemory(e) ? new JudgeOutOfMemory(memoryMb) : new Error(`the judge thread failed: ${e.message}`)));
    worker.on('exit', (code) => reject(new Error(`the judge thread exited (code ${code}) before its verdict`)));
  });
  // The summary settles the worker's work: let it go.
  summary.then(
    () => worker.terminate(),
    () => worker.terminate(),
  );
  return { worker, summary };
}

/** How the live judge follows the history. */
export interface LiveJudgeFollowing {
  /** How often it looks for more records (ms). */
  pollMs?: number;
  /**
   * Hold off while this thread's event loop is saturated (load-pacer.ts), at most `maxHeldMs`
   * (default reader.ts FOLLOW_MAX_HELD_MS) behind the writer: true unless a violation must stop
   * the run at once (--abort-on-violation).
   */
  yieldToLoad?: boolean;
  maxHeldMs?: number;
  /** The thread's memory limit (MB; judge-memory.ts). */
  memoryMb?: number;
}

export class LiveJudge {
  private readonly worker: Worker;
  private readonly summary: Promise<Summary>;
  private readonly pacer: LoadPacer | null;
  /** Resolves once the thread has loaded the oracle (about a second of CPU) and follows the file. */
  readonly ready: Promise<void>;

  constructor(historyPath: string, options: JudgeWorkerOptions, hooks: LiveJudgeHooks = {}, following: LiveJudgeFollowing = {}) {
    let loaded!: () => void;
    this.ready = new Promise<void>((resolve) => (loaded = resolve));
    const withReady: LiveJudgeHooks = {
      ...hooks,
      onReady: () => (loaded(), hooks.onReady?.()),
      onSnapshot: (id, summary) => {
        this.asked.get(id)?.(summary);
        this.asked.delete(id);
      },
    };
    this.pacer = following.yieldToLoad === false ? null : new LoadPacer(holdFlag(), undefined, (held) => hooks.onHold?.(held));
    const hold = this.pacer ? { hold: { flag: this.pacer.flag, maxHeldMs: following.maxHeldMs ?? FOLLOW_MAX_HELD_MS } } : {};
    ({ worker: this.worker, summary: this.summary } = startJudge({ mode: 'live', historyPath, options, ...(following.pollMs !== undefined ? { pollMs: following.pollMs } : {}), ...(following.memoryMb !== undefined ? { memoryMb: following.memoryMb } : {}), ...hold }, withReady));
    // A failure is reported by close(), never as an unhandled rejection meanwhile; a thread that
    // failed before loading is not waited for. Once it has given its verdict or failed, a snapshot
    // asked of it is answered null.
    const gone = (): void => {
      this.over = true;
      for (const answer of this.asked.values()) answer(null);
      this.asked.clear();
    };
    this.summary.then(gone, (e: unknown) => {
      loaded();
      gone();
      if (!this.closing) hooks.onFailed?.(e as Error);
    });
  }

  /** close() or terminate() was called: a failure now is the verdict's to report, or wanted. */
  private closing = false;

  private readonly asked = new Map<number, (summary: Summary | null) => void>();
  private nextAsk = 0;
  private over = false;

  /** The thread has given its verdict or failed: it answers no snapshot. */
  get gone(): boolean {
    return this.over;
  }

  /**
   * The verdict so far, over the records the thread has read (a run's snapshot): what `check` of
   * them gives, the judging going on after (check.ts InterimCheck). null when it has read no record
   * yet, has read the end record, or its thread is gone.
   */
  snapshot(): Promise<Summary | null> {
    if (this.over) return Promise.resolve(null);
    const id = ++this.nextAsk;
    return new Promise((resolve) => {
      this.asked.set(id, resolve);
      this.worker.postMessage({ snapshot: { id } } satisfies ToJudge);
    });
  }

  /** The history is closed: judge what is left of it and give the verdict. */
  close(interrupted: boolean): Promise<Summary> {
    this.closing = true;
    this.pacer?.stop();
    this.worker.postMessage({ close: { interrupted } });
    return this.summary;
  }

  /** Stops the thread without a verdict (the run failed before its history opened). */
  async terminate(): Promise<void> {
    this.closing = true;
    this.pacer?.stop();
    await this.worker.terminate();
  }
}

/** The verdict on the history file as it stands (a run still writing it): judged on a thread of its own. */
export function judgeSnapshot(historyPath: string, options: JudgeWorkerOptions, memoryMb?: number): { summary: Promise<Summary>; cancel: () => Promise<void> } {
  const { worker, summary } = startJudge({ mode: 'snapshot', historyPath, options, ...(memoryMb !== undefined ? { memoryMb } : {}) }, {});
  return { summary, cancel: async () => void (await worker.terminate()) };
}

/**
 * `paystorm check` and `report` of a history file: judged on a thread of its own at full priority,
 * within the judge's memory limit (judge-memory.ts), so that a history too long for it fails with
 * JudgeOutOfMemory rather than taking the process down. The reader's warnings go to `onWarning`;
 * how far it got, every `everyMs` of a long judgement, to `onProgress` (judge-progress.ts); a file
 * foretold too long for the limit after its first `forecastAfter` records, to `onWarning` (JudgeFileForecast).
 */
export function judgeFileOnThread(
  historyPath: string,
  options: JudgeWorkerOptions,
  memoryMb: number | undefined,
  onWarning: (message: string) => void,
  progress: { onProgress?: (p: JudgeProgressReport) => void; everyMs?: number; forecastAfter?: number } = {},
): Promise<Summary> {
  const data: JudgeWorkerData = {
    mode: 'file',
    historyPath,
    options,
    ...(memoryMb !== undefined ? { memoryMb } : {}),
    ...(progress.everyMs !== undefined ? { progressEveryMs: progress.everyMs } : {}),
    ...(progress.forecastAfter !== undefined ? { forecastAfter: progress.forecastAfter } : {}),
  };
  return startJudge(data, { onWarning, ...(progress.onProgress ? { onProgress: progress.onProgress } : {}) }).summary;
}

/** Exchanges sent to the k6 judge thread per message. */
const K6_BATCH_EXCHANGES = 1024;
const K6_BATCH_BYTES = 512 * 1024;

/**
 * `paystorm check` of k6 output judged on two cores while the file is read: the reader
 * (src/history/k6.ts) tells this follower the foreseen run record and the exchanges in start
 * order. Each exchange goes, as its text, to a judge thread that runs the invariants (started at
 * the first of them), and is decoded here too for what `check` folds besides them (metrics,
 * threshold scopes, drift, the rate boundary: check.ts CheckFolds), so the two cores share the
 * work. `result()` puts the thread's judgement and the folds together as `check` does, once the
 * file ended as foreseen; null otherwise (never started, abandoned, a record that does not decode,
 * the thread failed): the caller then judges the records the reader kept with `check`, which
 * gives the same verdict (or the same error).
 */
export class K6FollowingJudge implements K6Follower {
  private judge: { worker: Worker; summary: Promise<Judgement> } | null = null;
  private state: 'idle' | 'following' | 'finished' | 'abandoned' = 'idle';
  /** Why it gave up (null: it did not). */
  abandoned: string | null = null;
  /** The thread ran out of memory: judging the records again on the main thread would too. */
  outOfMemory: JudgeOutOfMemory | null = null;
  private readonly folds: CheckFolds;
  private run: RunRecord | null = null;
  private originMs = 0;
  private seq = 0;
  /** Batches the thread decoded and handed back, to be written again. */
  private readonly spare: K6ExchangeBatch[] = [];
  private bytes: Uint8Array = new Uint8Array(0);
  /** `bytes` as a Buffer (its UTF-8 reads and writes). */
  private view: Buffer = Buffer.alloc(0);
  private bounds: Int32Array = new Int32Array(0);
  private used = 0;
  private count = 0;

  constructor(
    private readonly path: string,
    private readonly options: CheckOptions,
    /** The judge thread's memory limit (MB; judge-memory.ts). */
    private readonly memoryMb?: number,
  ) {
    this.folds = new CheckFolds(options);
  }

  start(run: RunRecord, originMs: number): void {
    if (this.state !== 'idle') return;
    this.state = 'following';
    this.judge = startJudge({ mode: 'k6', historyPath: this.path, options: { thresholds: [], scenarioThresholds: {} }, ...(this.memoryMb !== undefined ? { memoryMb: this.memoryMb } : {}) }, { onRecycle: (b) => this.spare.push(b), onWarning: (m) => process.stderr.write(`paystorm: ${m}\n`) });
    // A failed thread means "judge it after the read instead": never an unhandled rejection.
    this.judge.summary.catch(() => undefined);
    this.run = run;
    this.originMs = originMs;
    this.post({ k6start: { run, originMs } });
    this.folds.add(run);
    this.fresh(K6_BATCH_BYTES);
  }

  exchange(buf: Buffer, start: number, end: number, line: number): void {
    if (this.state !== 'following') return;
    // The record's text in UTF-8 is never longer than its literal (an escape is longer than what it stands for).
    const room = end - start;
    if (this.count === K6_BATCH_EXCHANGES || this.used + room > this.bytes.length) {
      this.flush();
      this.fresh(Math.max(K6_BATCH_BYTES, room));
    }
    // The literal unescaped straight into the batch: both threads then read the text from its bytes.
    let size = unescapedInto(buf, start, end, this.bytes, this.used);
    try {
      // Any other literal: its text, written as UTF-8 (and read back as the judge thread will read it).
      if (size < 0) size = this.view.write(JSON.parse(lineText(buf, start, end)) as string, this.used, 'utf8');
      const text = this.view.toString('utf8', this.used, this.used + size);
      this.folds.add(k6ExchangeOfText(this.path, text, line, ++this.seq, this.originMs));
    } catch (e) {
      // The read after the file will refuse it, naming its line.
      this.abandon(`an exchange record does not decode (${(e as Error).message})`);
      return;
    }
    const at = 3 * this.count++;
    this.bounds[at] = this.used;
    this.bounds[at + 1] = this.used + size;
    this.bounds[at + 2] = line;
    this.used += size;
  }

  finish(facts: RunRecord['facts'], end: EndRecord): void {
    if (this.state !== 'following') return;
    this.flush();
    this.post({ k6finish: { facts, end } });
    // The folds hold the run record given first, as the thread's oracle does: its facts are the file's.
    this.run!.facts = facts;
    this.folds.add(end);
    this.state = 'finished';
  }

  abandon(why: string): void {
    if (this.state !== 'following') return;
    this.state = 'abandoned';
    this.abandoned = why;
    void this.judge?.worker.terminate();
  }

  /** The verdict, as `check` gives it, or null when the caller must judge the records itself. */
  async result(): Promise<CheckResult | null> {
    if (this.state !== 'finished' || !this.judge) {
      await this.cancel();
      return null;
    }
    try {
      return checkResultOf(await this.judge.summary, this.folds, this.options);
    } catch (e) {
      this.abandoned = `the judge thread failed: ${(e as Error).message}`;
      if (e instanceof JudgeOutOfMemory) this.outOfMemory = e;
      return null;
    }
  }

  /** The summary of result(). */
  async summary(): Promise<Summary | null> {
    return (await this.result())?.summary ?? null;
  }

  /** Stops the thread (the read failed, or its verdict is not wanted). */
  async cancel(): Promise<void> {
    if (this.state === 'following') this.state = 'abandoned';
    if (this.judge) await this.judge.worker.terminate();
  }

  private post(m: ToJudge, transfer: ArrayBuffer[] = []): void {
    this.judge!.worker.postMessage(m, transfer);
  }

  private fresh(size: number): void {
    // A batch the thread handed back when one is big enough: memory touched the first time costs a page fault a page.
    const spare = this.spare.length && this.spare[this.spare.length - 1].bytes.byteLength >= size ? this.spare.pop()! : null;
    this.bytes = spare?.bytes ?? new Uint8Array(new ArrayBuffer(size));
    this.view = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    this.bounds = spare?.bounds ?? new Int32Array(new ArrayBuffer(3 * 4 * K6_BATCH_EXCHANGES));
    this.used = 0;
    this.count = 0;
  }

  private flush(): void {
    if (this.count === 0) return;
    const batch: K6ExchangeBatch = { bytes: this.bytes, bounds: this.bounds, count: this.count };
    this.post({ k6exchanges: batch }, [this.bytes.buffer as ArrayBuffer, this.bounds.buffer as ArrayBuffer]);
    this.fresh(K6_BATCH_BYTES);
  }
}

/**
 * The judge of `paystorm merge`, on a thread of its own: started before the shards are read (it
 * loads the oracle meanwhile), it follows the merged history as the merge's writing thread
 * writes it and judges it with `check`, as a run's live judge follows its history: so the
 * merge's verdict is the one a later `paystorm check` of its folder gives, from the records in
 * the file.
 */
export class MergeJudge {
  private readonly judge: { worker: Worker; summary: Promise<Summary> };
  /** Resolves once the thread has loaded the oracle (or failed to). */
  readonly ready: Promise<void>;

  constructor(options: JudgeWorkerOptions, memoryMb?: number) {
    let loaded!: () => void;
    this.ready = new Promise<void>((resolve) => (loaded = resolve));
    this.judge = startJudge(
      { mode: 'merge', historyPath: 'paystorm merge', options, ...(memoryMb !== undefined ? { memoryMb } : {}) },
      { onReady: () => loaded(), onWarning: (m) => process.stderr.write(`paystorm: ${m}\n`) },
    );
    // A failure is reported by close(), never as an unhandled rejection meanwhile.
    this.judge.summary.catch(() => loaded());
  }

  /** Starts following the merged history at `historyPath` (it may not exist yet). */
  follow(historyPath: string): void {
    this.judge.worker.postMessage({ follow: { historyPath } } satisfies ToJudge);
  }

  /** The merged history is written and closed: judge the rest of it and give the summary. */
  close(): Promise<Summary> {
    // Interrupted or not as the merged end record says (a shard's run may have been stopped).
    this.judge.worker.postMessage({ close: {} } satisfies ToJudge);
    return this.judge.summary;
  }

  /** Stops the thread (the shards were refused, the history could not be written, or the verdict is in). */
  async cancel(): Promise<void> {
    await this.judge.worker.terminate();
  }
}
