/** Builds the OracleContext from the run record (the first record of a history). */
import { DEFAULT_SETTLE_BOUND_MS } from '../spec/index.ts';
import type { HistoryRecord, KeyInfo, RunRecord } from '../history/index.ts';
import { Ledger } from './ledger.ts';
import type { OracleContext } from './types.ts';


export function createContext(run: RunRecord | null, first?: HistoryRecord): OracleContext {
  const keys = new Map<string, KeyInfo>((run?.keys ?? []).map((k) => [k.label, k]));
  // Exchange wall times are the epoch ms of their tStart on the run's clock.
  const origin = run ? run.wall : first && first.kind === 'exchange' ? first.wall - first.tStart : 0;
  const declared = new Set<string>();
  for (const s of run?.scenarios ?? []) for (const r of s.rules) declared.add(r);
  return {
    run,
    presentation: run?.target.presentation ?? null,
    rateLimit: run?.rateLimit ?? null,
    keys,
    scenarios: run?.scenarios ?? [],
    declaredRules: declared,
    settleBoundMs: run?.settleBoundMs ?? DEFAULT_SETTLE_BOUND_MS,
    webhooks: run?.webhooks ?? null,
    cardOutcomes: run?.cardOutcomes ?? [],
    timeScale: run?.timeScale ?? 1,
    epochMs: (t: number) => origin + t,
    ledger: new Ledger(keys),
  };
}
