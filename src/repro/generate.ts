/**
 * Repro plans for every violation example of a judged run, read from its history: the evidence's
 * exchange records by seq, then the setup of the payments they act on. Writes one bash script per
 * example into `<run>/repro/<invariant>-<n>.sh` and links it from the example (`repro`).
 */
import { chmod, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Summary } from '../spec/index.ts';
import { makeDirs, type ExchangeRecord, type HistoryRecord, type RunRecord } from '../history/index.ts';
import { readHistory } from '../history/reader.ts';
import { buildPlan, isSetupFor, referencedPayments, type ReproPlan, type ViolationRef } from './plan.ts';
import { renderBash } from './script.ts';

export const REPRO_DIR = 'repro';

/** The violations of a summary that carry evidence seqs, each with its id. */
export function violationsOf(summary: Summary): ViolationRef[] {
  const out: ViolationRef[] = [];
  for (const inv of summary.invariants) {
    if (inv.status !== 'fail') continue;
    inv.examples.forEach((evidence, i) => {
      if (evidence.seqs?.length) out.push({ invariant: { id: inv.id, title: inv.title, rules: inv.rules }, n: i + 1, evidence });
    });
  }
  return out;
}

/** Builds the plans of the given violations from a history file (two passes, only when there are violations). */
export async function plansFromHistory(historyPath: string, violations: readonly ViolationRef[]): Promise<{ plans: ReproPlan[]; run: RunRecord | null }> {
  if (!violations.length) return { plans: [], run: null };
  const wanted = new Set(violations.flatMap((v) => v.evidence.seqs ?? []));
  const bySeq = new Map<number, ExchangeRecord>();
  let run: RunRecord | null = null;
  for await (const rec of readHistory(historyPath, { onWarning: () => {} }) as AsyncIterable<HistoryRecord>) {
    if (rec.kind === 'run') run = rec;
    else if (rec.kind === 'exchange' && wanted.has(rec.seq)) bySeq.set(rec.seq, rec);
  }
  const evidenceOf = (v: ViolationRef) => [...new Set(v.evidence.seqs ?? [])].map((s) => bySeq.get(s)).filter((r): r is ExchangeRecord => r !== undefined);
  const ids = new Set<string>();
  for (const v of violations) for (const r of evidenceOf(v)) for (const id of referencedPayments(r)) ids.add(id);
  const setup: ExchangeRecord[] = [];
  const seen: { id: string; tEnd: number; status: string }[] = [];
  if (ids.size) {
    for await (const rec of readHistory(historyPath, { onWarning: () => {} }) as AsyncIterable<HistoryRecord>) {
      if (rec.kind !== 'exchange') continue;
      if (isSetupFor(rec, ids)) setup.push(rec);
      if (rec.payment && ids.has(rec.payment.id)) seen.push({ id: rec.payment.id, tEnd: rec.tEnd, status: rec.payment.status });
    }
  }
  const plans: ReproPlan[] = [];
  for (const v of violations) {
    const ev = evidenceOf(v);
    if (!ev.length) continue;
    const t0 = Math.min(...ev.map((r) => r.tStart));
    const mine = new Set(ev.flatMap(referencedPayments));
    const statusBefore = new Map<string, string>();
    for (const s of seen) if (mine.has(s.id) && s.tEnd <= t0) statusBefore.set(s.id, s.status); // records in file order: the last one wins
    const plan = buildPlan(v, ev, setup.filter((r) => (r.payment && mine.has(r.payment.id)) || (r.sent.paymentId !== undefined && mine.has(r.sent.paymentId))), statusBefore, { rateLimit: run?.rateLimit ?? null });
    for (const k of plan.keys) k.prefix = run?.keys.find((x) => x.label === k.label)?.prefix ?? '';
    plans.push(plan);
  }
  return { plans, run };
}

/**
 * Writes `<runDir>/repro/*.sh` for the summary's violations and sets each example's `repro`
 * (relative to the run directory). Returns the plans. A failure here never fails the run: the
 * caller warns and the reports go out without repro links.
 */
export async function writeRepros(historyPath: string, summary: Summary): Promise<ReproPlan[]> {
  const runDir = dirname(historyPath);
  const violations = violationsOf(summary);
  const dir = join(runDir, REPRO_DIR);
  await rm(dir, { recursive: true, force: true });
  if (!violations.length) return [];
  const { plans } = await plansFromHistory(historyPath, violations);
  if (!plans.length) return [];
  await makeDirs(dir);
  for (const plan of plans) {
    const file = join(dir, `${plan.id}.sh`);
    await writeFile(file, renderBash(plan), 'utf8');
    await chmod(file, 0o755);
    const v = violations.find((x) => `${x.invariant.id}-${x.n}` === plan.id)!;
    v.evidence.repro = `${REPRO_DIR}/${plan.id}.sh`;
  }
  return plans;
}
