/**
 * The oracle's contract, modelled on ESLint's rules: an invariant has an id, the
 * rules.md ids it covers, a title, and a check that sees every history record
 * once (streaming) and then says pass, fail or not-exercised, with evidence.
 */
import type { CardOutcome, Evidence, Finding, Operation, Presentation } from '../spec/index.ts';
import type { HistoryRecord, KeyInfo, RunRecord } from '../history/index.ts';
import type { Ledger } from './ledger.ts';

export type OutcomeStatus = 'pass' | 'fail' | 'not-exercised';

export interface InvariantOutcome {
  status: OutcomeStatus;
  /** How many things it judged (a request, a payment, a window...). */
  checked: number;
  violations: number;
  /** At most a few violations, with evidence. */
  examples: Evidence[];
  /** Why it was not exercised, or a one-line summary. */
  reason: string | null;
  /** Run facts learned on the way (observations, discovered choices of the service); never change the status. */
  findings?: Finding[];
}

export type RecordTrait = 'errors' | 'payments' | 'auth-probes' | 'idem-probes';

export interface InvariantCheck {
  /** Record kinds it wants (default: all); the judge calls onRecord only for those. */
  kinds?: readonly HistoryRecord['kind'][];
  /** Of exchange records, only these operations (default: all). */
  ops?: readonly Operation[];
  /**
   * Only records with this trait: `errors` = exchanges answered 400 or above, `payments` =
   * exchanges and webhooks carrying a payment, `auth-probes` = requests sent with a wrong
   * Authorization on purpose, `idem-probes` = POSTs with a missing or oversized
   * Idempotency-Key on purpose (default: all records).
   */
  answers?: RecordTrait;
  /** Called once per record, in file order (the run record first); absent when the check works from the ledger at the end. */
  onRecord?(rec: HistoryRecord): void;
  finish(): InvariantOutcome;
}

export interface Invariant {
  /** Kebab-case name of what it checks, e.g. `rate-window-cap`. */
  id: string;
  title: string;
  /** rules.md ids it covers. */
  rules: string[];
  /**
   * Its finish() reads `ctx.ledger.rateTables()`. The ledger keeps the table those are loaded
   * into from one such invariant to the next, and the judge lets it go after the last one's
   * finish() (a soak's key fills hundreds of megabytes). One not marked still reads the tables,
   * in a table made anew.
   */
  readsRateTables?: true;
  create(ctx: OracleContext): InvariantCheck;
}

/** What every invariant knows about the run before the first exchange. */
export interface OracleContext {
  /** The run record (null when the history does not start with one). */
  run: RunRecord | null;
  presentation: Presentation | null;
  /** Learned by the run: limit per window and window length. */
  rateLimit: { limit: number; windowMs: number } | null;
  keys: ReadonlyMap<string, KeyInfo>;
  scenarios: readonly { name: string; rules: readonly string[] }[];
  /** Rules the selected scenarios declare. */
  declaredRules: ReadonlySet<string>;
  /** SM-6 / FT-2 bound in ms (already scaled). */
  settleBoundMs: number;
  webhooks: RunRecord['webhooks'];
  cardOutcomes: readonly CardOutcome[];
  timeScale: number;
  /** Epoch ms of a run-monotonic time. */
  epochMs(t: number): number;
  /** Facts the judge derives from every record before handing it to the invariants. */
  ledger: Ledger;
}
