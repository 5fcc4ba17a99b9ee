/**
 * The fingerprint of a judgement: everything the oracle said about one history, from its
 * summary.json (src/oracle/summary.ts), with only what is not a judgement normalised:
 *
 * - `runId` is dropped (the run folder's name; the corpus entry names the run);
 * - absolute paths (the repository, the history's folder) become `<root>` and `<run>` in every string;
 * - an invariant's `error` keeps its first line (the exception's message): the stack frames
 *   under it carry paths and line numbers, which any edit of the code moves;
 * - an example's `repro` is dropped (the report writer's file name, added after judging);
 * - `metrics`, `drift` and `comparison` are kept as a digest (sha256 of their canonical JSON):
 *   a default-suite run's metrics alone are some 300 KB.
 *
 * Everything else is kept as the summary has it: verdict, reason, complete, exit code; per
 * invariant its status, violations, checked, reason, rules, title and every example's evidence;
 * thresholds with their values; findings with their evidence; scenarios, faults, keys, load,
 * the rate-limit boundary, the run's target, start and duration (all read from the history).
 * Invariants and findings are keyed by id, thresholds sorted by expression and scope, object
 * keys sorted: an order that depends on the statuses (the judge sorts failures first) is not a
 * second judgement.
 */
import { createHash } from 'node:crypto';
import type { Evidence, Finding, InvariantResult, Summary, ThresholdResult } from '../../src/spec/index.ts';

export const FINGERPRINT_VERSION = 1;

export interface InvariantFingerprint {
  title: string;
  rules: string[];
  status: InvariantResult['status'];
  violations: number;
  checked: number;
  reason: string | null;
  /** The exception's message (first line of its stack) when status is error. */
  error: string | null;
  examples: Evidence[];
}

export interface Fingerprint {
  fingerprint: typeof FINGERPRINT_VERSION;
  verdict: Summary['verdict'];
  reason: string | null;
  complete: boolean;
  exitCode: number;
  invariants: Record<string, InvariantFingerprint>;
  thresholds: ThresholdResult[];
  findings: Record<string, Omit<Finding, 'id'>>;
  scenarios: Summary['scenarios'];
  faults: Summary['faults'];
  keys: Summary['keys'];
  target: Summary['target'];
  started_at: string;
  duration_ms: number;
  rateBoundary: Summary['rateBoundary'] | null;
  load: Summary['load'] | null;
  digests: { metrics: string; drift: string | null; comparison: string | null };
}

export interface FingerprintOptions {
  /** Absolute paths to replace in every string, longest first: e.g. `{ '/work/repo': '<root>' }`. */
  paths?: Readonly<Record<string, string>>;
}

/** JSON with object keys sorted at every level, so a field order is never a difference. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** Every string in `value` with the given paths replaced (longest first, so a folder inside the root wins). */
function replacePaths<T>(value: T, paths: Readonly<Record<string, string>>): T {
  const pairs = Object.entries(paths).filter(([p]) => p.length > 1).sort((a, b) => b[0].length - a[0].length);
  if (!pairs.length) return value;
  const fix = (v: unknown): unknown => {
    if (typeof v === 'string') return pairs.reduce((s, [p, r]) => s.split(p).join(r), v);
    if (Array.isArray(v)) return v.map(fix);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fix(x)]));
    return v;
  };
  return fix(value) as T;
}

function evidence(e: Evidence): Evidence {
  const { repro: _repro, ...rest } = e;
  return rest;
}

function thresholdKey(t: ThresholdResult): string {
  return `${t.expr} [${(t.scope ?? []).join(',')}]`;
}

export function fingerprintOf(summary: Summary, opts: FingerprintOptions = {}): Fingerprint {
  const invariants: Record<string, InvariantFingerprint> = {};
  for (const i of [...summary.invariants].sort((a, b) => a.id.localeCompare(b.id))) {
    invariants[i.id] = {
      title: i.title,
      rules: [...i.rules],
      status: i.status,
      violations: i.violations,
      checked: i.checked,
      reason: i.reason,
      error: i.error === null ? null : (i.error.split('\n')[0] ?? ''),
      examples: i.examples.map(evidence),
    };
  }
  const findings: Record<string, Omit<Finding, 'id'>> = {};
  for (const f of summary.findings ?? []) {
    const { id, ...rest } = f;
    findings[id] = rest.evidence ? { ...rest, evidence: evidence(rest.evidence) } : rest;
  }
  const fp: Fingerprint = {
    fingerprint: FINGERPRINT_VERSION,
    verdict: summary.verdict,
    reason: summary.reason ?? null,
    complete: summary.complete,
    exitCode: summary.exitCode,
    invariants,
    thresholds: [...summary.thresholds].sort((a, b) => thresholdKey(a).localeCompare(thresholdKey(b))),
    findings,
    scenarios: summary.scenarios,
    faults: summary.faults,
    keys: summary.keys,
    target: summary.target,
    started_at: summary.started_at,
    duration_ms: summary.duration_ms,
    rateBoundary: summary.rateBoundary ?? null,
    load: summary.load ?? null,
    digests: {
      metrics: digest(summary.metrics),
      drift: summary.drift ? digest(summary.drift) : null,
      comparison: summary.comparison ? digest(summary.comparison) : null,
    },
  };
  // Through canonical JSON: key order fixed, undefined fields gone, as the file will hold it.
  return JSON.parse(canonicalJson(replacePaths(fp, opts.paths ?? {}))) as Fingerprint;
}

export interface FingerprintDifference {
  /** `run` (verdict, reason, complete, exit code and the other run-wide fields), `invariant <id>`, `threshold <expr>`, `finding <id>`. */
  where: string;
  /** The field inside it, as a path (`violations`, `examples[0].seqs[2]`); empty for the whole thing. */
  field: string;
  /** undefined: absent on that side. */
  old: unknown;
  new: unknown;
}

const ABSENT = Symbol('absent');

function leafDiffs(a: unknown, b: unknown, path: string, out: { field: string; old: unknown; new: unknown }[]): void {
  if (a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b))) return;
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects = !bothArrays && a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
  if (bothArrays) {
    const xs = a as unknown[];
    const ys = b as unknown[];
    for (let i = 0; i < Math.max(xs.length, ys.length); i++) leafDiffs(i < xs.length ? xs[i] : ABSENT, i < ys.length ? ys[i] : ABSENT, `${path}[${i}]`, out);
    return;
  }
  if (bothObjects) {
    const ka = a as Record<string, unknown>;
    const kb = b as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(ka), ...Object.keys(kb)])].sort()) leafDiffs(k in ka ? ka[k] : ABSENT, k in kb ? kb[k] : ABSENT, path ? `${path}.${k}` : k, out);
    return;
  }
  out.push({ field: path, old: a === ABSENT ? undefined : a, new: b === ABSENT ? undefined : b });
}

/** Each difference between two fingerprints, grouped by invariant, threshold and finding; empty when they agree. */
export function compareFingerprints(before: Fingerprint, after: Fingerprint): FingerprintDifference[] {
  const out: FingerprintDifference[] = [];
  const push = (where: string, a: unknown, b: unknown) => {
    const leaves: { field: string; old: unknown; new: unknown }[] = [];
    leafDiffs(a, b, '', leaves);
    for (const l of leaves) out.push({ where, ...l });
  };
  const { invariants: ia, findings: fa, thresholds: ta, ...runA } = before;
  const { invariants: ib, findings: fb, thresholds: tb, ...runB } = after;
  push('run', runA, runB);
  for (const id of [...new Set([...Object.keys(ia ?? {}), ...Object.keys(ib ?? {})])].sort()) push(`invariant ${id}`, ia?.[id] ?? ABSENT, ib?.[id] ?? ABSENT);
  const byKey = (ts: ThresholdResult[] | undefined) => {
    const m = new Map<string, ThresholdResult[]>();
    for (const t of ts ?? []) m.set(thresholdKey(t), [...(m.get(thresholdKey(t)) ?? []), t]);
    return m;
  };
  const tma = byKey(ta);
  const tmb = byKey(tb);
  for (const k of [...new Set([...tma.keys(), ...tmb.keys()])].sort()) push(`threshold ${k}`, tma.get(k) ?? ABSENT, tmb.get(k) ?? ABSENT);
  for (const id of [...new Set([...Object.keys(fa ?? {}), ...Object.keys(fb ?? {})])].sort()) push(`finding ${id}`, fa?.[id] ?? ABSENT, fb?.[id] ?? ABSENT);
  return out;
}

/** One line per difference: `invariant rate-window-cap: violations: 3 -> 4`. */
export function describeDifference(d: FingerprintDifference): string {
  const show = (v: unknown) => {
    if (v === undefined) return '(absent)';
    const s = JSON.stringify(v) ?? String(v);
    return s.length > 300 ? `${s.slice(0, 297)}...` : s;
  };
  return `${d.where}${d.field ? `: ${d.field}` : ''}: ${show(d.old)} -> ${show(d.new)}`;
}
