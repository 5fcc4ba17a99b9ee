/**
 * Runs every invariant over one pass of the history. An invariant that throws
 * becomes `error` (with its stack) and stops receiving records; the others go on.
 */
import { OPERATIONS, type Evidence, type Finding, type InvariantResult } from '../spec/index.ts';
import { ScenarioActivity, scenarioProgress, type EndRecord, type HistoryRecord, type RunRecord, type ScenarioProgress } from '../history/index.ts';
import { createContext } from './context.ts';
import { DriverLinks } from './lib/driver-links.ts';
import { findingsCreated, type Findings, liveViolations } from './lib/findings.ts';
import { ScratchScope } from './lib/spill.ts';
import { INVARIANTS } from './invariants/index.ts';
import type { Invariant, InvariantCheck, OracleContext, RecordTrait } from './types.ts';

export interface JudgeOptions {
  /** Invariant ids to run (default: all). */
  only?: string[];
  /** Invariants to run instead of the registry (tests). */
  invariants?: readonly Invariant[];
  /**
   * Told of each violation as soon as a check confirms it while judging a record (the live
   * verdict: the progress line, `--abort-on-violation`). Every one told is in the final count;
   * violations a check finds only at the end (`finish()`) are not told.
   */
  onViolation?: (invariant: Pick<Invariant, 'id' | 'rules'>, evidence: Evidence) => void;
  /** Filled in by `judge` once it has its first record: the judgement so far, the pass going on after. */
  interim?: InterimJudgement;
}

/** Where `judge` puts its interim judgement (JudgeOptions.interim). */
export interface InterimJudgement {
  /** The judgement so far; null before the first record, once the end record is read, and once the pass is over. */
  conclude: (() => Judgement) | null;
}

export interface Judgement {
  invariants: InvariantResult[];
  /** Why no invariant was judged, and what to do (the judge ran out of memory: `unjudged`); absent when they were. */
  unjudged?: string;
  run: RunRecord | null;
  end: EndRecord | null;
  /** Records judged. */
  records: number;
  /** Run facts the invariants reported, one per id, warnings first. */
  findings: Finding[];
  /** The run record's scenarios with how far each got: finished, cut short, never started (src/history/scenario-progress.ts). */
  scenarios: ScenarioProgress[];
}

const LEVEL_ORDER: Record<Finding['level'], number> = { warning: 0, observation: 1, info: 2 };

interface Slot {
  inv: Invariant;
  check: InvariantCheck | null;
  /**
   * check.onRecord, read once: a hundred checks are a hundred object shapes, so reading it off
   * the check for every record would be a megamorphic property load per call.
   */
  onRecord: InvariantCheck['onRecord'];
  error: string | null;
  /** The Findings the check made when created (an interim judgement takes back what finish() adds to them). */
  findings: Findings[];
}

const STATUS_ORDER: Record<InvariantResult['status'], number> = { fail: 0, error: 1, 'not-exercised': 2, pass: 3 };

const TRAIT_BITS: Record<RecordTrait, number> = { errors: 1, payments: 2, 'auth-probes': 4, 'idem-probes': 8 };

/** The traits a record has, as bits of TRAIT_BITS (computed once, so checks that want a trait are not called for the rest). */
function traitsOf(rec: HistoryRecord): number {
  if (rec.kind === 'exchange') {
    const auth = rec.sent.auth;
    return (rec.status >= 400 ? 1 : 0) | (rec.payment ? 2 : 0) | (auth !== undefined && auth !== 'ok' ? 4 : 0) | (rec.sent.idemVariant !== undefined ? 8 : 0);
  }
  return rec.kind === 'webhook' && rec.payment ? 2 : 0;
}

function stackOf(e: unknown): string {
  return e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
}

/**
 * Every record in order; a batched source (readHistory) spares a promise per record. With a
 * scope, the records are judged within it (the scratch files they make are the judgement's).
 */
async function eachRecord(records: Iterable<HistoryRecord> | AsyncIterable<HistoryRecord>, onRecord: (rec: HistoryRecord) => void, scope?: ScratchScope): Promise<void> {
  const batched = (records as { batches?: () => AsyncIterable<HistoryRecord[]> }).batches;
  if (typeof batched === 'function') {
    const judgeBatch = (batch: HistoryRecord[]) => {
      for (const rec of batch) onRecord(rec);
    };
    for await (const batch of batched.call(records)) {
      if (scope) scope.within(() => judgeBatch(batch));
      else judgeBatch(batch);
    }
  } else {
    for await (const rec of records) {
      if (scope) scope.within(() => onRecord(rec));
      else onRecord(rec);
    }
  }
}

export async function judge(records: Iterable<HistoryRecord> | AsyncIterable<HistoryRecord>, opts: JudgeOptions = {}): Promise<Judgement> {
  const registry = opts.invariants ?? INVARIANTS;
  const selected = opts.only ? registry.filter((i) => opts.only!.includes(i.id)) : [...registry];
  if (opts.only) {
    const unknown = opts.only.filter((id) => !registry.some((i) => i.id === id));
    if (unknown.length) throw new Error(`unknown invariant id(s): ${unknown.join(', ')}`);
  }
  let ctx: OracleContext | null = null;
  let slots: Slot[] = [];
  /**
   * Who gets which record, worked out once: per record kind, and for exchanges per operation;
   * each list in sixteen variants by the record's traits (see `traitsOf`).
   */
  let byKind: Record<Exclude<HistoryRecord['kind'], 'exchange'>, Slot[][]> = { run: [], webhook: [], fault: [], end: [] };
  let byOp = new Map<string, Slot[][]>();
  /** Exchanges with an operation the registry does not know still reach every check without an ops filter. */
  let anyOp: Slot[][] = [];
  const dispatch = () => {
    const live = slots.filter((s) => s.error === null && s.onRecord);
    const wants = (s: Slot, kind: HistoryRecord['kind']) => !s.check!.kinds || s.check!.kinds.includes(kind);
    const variants = (list: Slot[]) => Array.from({ length: 16 }, (_, v) => list.filter((s) => s.check!.answers === undefined || (v & TRAIT_BITS[s.check!.answers]) !== 0));
    byKind = { run: variants(live.filter((s) => wants(s, 'run'))), webhook: variants(live.filter((s) => wants(s, 'webhook'))), fault: variants(live.filter((s) => wants(s, 'fault'))), end: variants(live.filter((s) => wants(s, 'end'))) };
    byOp = new Map(OPERATIONS.map((op) => [op, variants(live.filter((s) => wants(s, 'exchange') && (!s.check!.ops || s.check!.ops.includes(op))))]));
    anyOp = variants(live.filter((s) => wants(s, 'exchange') && !s.check!.ops));
  };
  let run: RunRecord | null = null;
  let end: EndRecord | null = null;
  let count = 0;
  let ledgerError: string | null = null;

  const start = (first: HistoryRecord | undefined) => {
    run = first?.kind === 'run' ? first : null;
    ctx = createContext(run, first);
    slots = selected.map((inv) => {
      const made: Findings[] = [];
      findingsCreated.list = made;
      try {
        const check = inv.create(ctx!);
        return { inv, check, onRecord: check.onRecord, error: null, findings: made };
      } catch (e) {
        return { inv, check: null, onRecord: undefined, error: stackOf(e), findings: made };
      } finally {
        findingsCreated.list = null;
      }
    });
    dispatch();
  };

  // The slot whose onRecord runs, for the live sink (set only when someone listens: a variable write per call).
  let judging: Slot | null = null;
  const announce = opts.onViolation;
  const sink = announce ? (e: Evidence) => announce(judging!.inv, e) : null;
  const links = new DriverLinks();
  const activity = new ScenarioActivity();
  const onRecord = (rec: HistoryRecord) => {
    if (!ctx) {
      start(rec);
      if (opts.interim) opts.interim.conclude = () => conclude(true);
    }
    count++;
    links.observe(rec);
    activity.add(rec);
    if (rec.kind === 'end') {
      end = rec;
      // The final judgement is near: nothing midway to give.
      if (opts.interim) opts.interim.conclude = null;
    }
    if (ledgerError === null) {
      try {
        ctx!.ledger.observe(rec);
      } catch (e) {
        ledgerError = stackOf(e);
      }
    }
    let dropped = false;
    const wanting = rec.kind === 'exchange' ? (byOp.get(rec.op) ?? anyOp)[traitsOf(rec)] : byKind[rec.kind][traitsOf(rec)];
    liveViolations.sink = sink;
    for (let i = 0; i < wanting.length; i++) {
      const slot = wanting[i];
      judging = slot;
      try {
        slot.onRecord!.call(slot.check, rec);
      } catch (e) {
        slot.error = stackOf(e);
        dropped = true;
      }
    }
    liveViolations.sink = null;
    if (dropped) dispatch();
  };
  // The judgement's scratch files close when it ends, not when its columns are collected.
  const scratch = new ScratchScope();
  try {
    await eachRecord(records, onRecord, scratch);
    if (!ctx) scratch.within(() => start(undefined));
    if (opts.interim) opts.interim.conclude = null;
    return conclude(false);
  } finally {
    if (opts.interim) opts.interim.conclude = null;
    scratch.close();
  }

  /** Every invariant's result over the records judged so far: at the end of the pass, or midway (interim: what finish() adds to its counts is taken back). */
  function conclude(interim: boolean): Judgement {
    return scratch.within(() => concludeNow(interim));
  }

  function concludeNow(interim: boolean): Judgement {
    const findings = new Map<string, Finding>();
    const lastRateReader = slots.map((s) => s.inv.readsRateTables === true).lastIndexOf(true);
    const results: InvariantResult[] = slots.map(({ inv, check, error, findings: made }, index) => {
      const base = { id: inv.id, title: inv.title, rules: [...inv.rules] };
      const err = error ?? (ledgerError ? `the oracle's ledger failed on this history, so no invariant can be trusted:\n${ledgerError}` : null);
      if (err !== null || !check) {
        return { ...base, status: 'error', violations: 0, examples: [], reason: 'the check threw an exception', error: err ?? 'no check', checked: 0 };
      }
      const restores = interim ? made.map((f) => f.mark()) : [];
      try {
        const finished = check.finish();
        // Midway, a copy: the outcome may hold the very arrays the restores cut back.
        const o = interim ? structuredClone(finished) : finished;
        for (const f of o.findings ?? []) if (!findings.has(f.id)) findings.set(f.id, f);
        return { ...base, status: o.status, violations: o.violations, examples: o.examples, reason: o.reason, error: null, checked: o.checked };
      } catch (e) {
        return { ...base, status: 'error', violations: 0, examples: [], reason: 'the check threw an exception', error: stackOf(e), checked: 0 };
      } finally {
        for (const r of restores) r();
        if (index === lastRateReader) ctx?.ledger.releaseRateTable();
      }
    });
    if (interim) ctx?.ledger.dropConclusionLists();
    results.sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || a.id.localeCompare(b.id));
    const facts = [...findings.values()].sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || a.id.localeCompare(b.id));
    return { invariants: results, run, end, records: count, findings: facts, scenarios: scenarioProgress(run, end, activity) };
  }
}

/** Why no invariant was judged: a few words for each invariant's reason, and the whole of it (with the fix) for the verdict's. */
export interface Unjudged {
  short: string;
  full: string;
}

/**
 * The records read without judging them: the run and end records, how far each scenario got, and
 * every invariant `error` for `why`. What `check` gives when the judge could not run (it ran out of
 * memory: cli/live/judge-memory.ts), so the run's metrics and thresholds are still reported and a
 * run that was not judged never passes. Holds nothing per record.
 */
export async function unjudged(records: Iterable<HistoryRecord> | AsyncIterable<HistoryRecord>, why: Unjudged): Promise<Judgement> {
  let run: RunRecord | null = null;
  let end: EndRecord | null = null;
  let count = 0;
  const activity = new ScenarioActivity();
  const onRecord = (rec: HistoryRecord) => {
    if (count++ === 0 && rec.kind === 'run') run = rec;
    if (rec.kind === 'end') end = rec;
    activity.add(rec);
  };
  await eachRecord(records, onRecord);
  const invariants: InvariantResult[] = INVARIANTS.map((inv) => ({ id: inv.id, title: inv.title, rules: [...inv.rules], status: 'error', violations: 0, examples: [], reason: `not judged: ${why.short}`, error: why.full, checked: 0 }));
  invariants.sort((a, b) => a.id.localeCompare(b.id));
  return { invariants, unjudged: why.full, run, end, records: count, findings: [], scenarios: scenarioProgress(run, end, activity) };
}
