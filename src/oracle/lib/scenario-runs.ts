/**
 * Sentences about how far the selected scenarios got (src/history/scenario-progress.ts), for
 * the verdict's reason, the summary's `scenarios-not-finished` finding and the reasons of
 * invariants left not exercised because the scenarios declaring their rules never ran (or not
 * to their end): an engineer reading an interrupted run's report must not take those for the
 * service's doing.
 */
import type { Finding, ScenarioStatus } from '../../spec/index.ts';
import type { ScenarioProgress } from '../../history/index.ts';

const names = (xs: readonly ScenarioProgress[]) => xs.map((x) => x.name).join(', ');
const one = (xs: readonly unknown[]) => xs.length === 1;

const PHRASE: Record<ScenarioStatus, (xs: readonly ScenarioProgress[]) => string> = {
  finished: (xs) => `${names(xs)} ran to ${one(xs) ? 'its' : 'their'} end`,
  'cut-short': (xs) => `${names(xs)} ${one(xs) ? 'was' : 'were'} cut short`,
  started: (xs) => `${names(xs)} started (whether ${one(xs) ? 'it' : 'they'} ran to the end is not known)`,
  'not-started': (xs) => `${names(xs)} never started`,
};

const ORDER: readonly ScenarioStatus[] = ['finished', 'cut-short', 'started', 'not-started'];

/** `mixed ran to its end; idempotency was cut short; rate-limit never started`; '' when every scenario finished (or none is known). */
export function scenarioRunSentence(progress: readonly ScenarioProgress[]): string {
  if (progress.every((p) => p.status === 'finished')) return '';
  return ORDER.map((st) => progress.filter((p) => p.status === st))
    .filter((xs) => xs.length > 0)
    .map((xs) => PHRASE[xs[0].status](xs))
    .join('; ');
}

/**
 * Why rules were not exercised when every scenario declaring any of them never started or was
 * cut short: `the scenario rate-limit never started (the run was interrupted)`. Null when no
 * scenario declares them, or one that declares them ran to its end (or may have).
 */
export function unrunDeclaring(rules: readonly string[], progress: readonly ScenarioProgress[]): string | null {
  const declaring = progress.filter((p) => p.rules.some((r) => rules.includes(r)));
  if (declaring.length === 0 || !declaring.every((p) => p.status === 'not-started' || p.status === 'cut-short')) return null;
  const why = declaring.find((p) => p.why)?.why;
  const tail = why ? ` (${why})` : '';
  const cut = declaring.filter((p) => p.status === 'cut-short');
  const unstarted = declaring.filter((p) => p.status === 'not-started');
  const scenario = one(declaring) ? 'the scenario' : 'the scenarios';
  if (cut.length === 0) return `${scenario} ${names(unstarted)} never started${tail}`;
  if (unstarted.length === 0) return `${scenario} ${names(cut)} ${one(cut) ? 'was' : 'were'} cut short${tail}`;
  return `the scenarios declaring ${rules.length === 1 ? 'it' : 'them'} did not run to their end (${names(cut)} cut short, ${names(unstarted)} never started${why ? `; ${why}` : ''})`;
}

/**
 * A warning when a scenario did not run to its end: what stopped the run (`stop`, src/history
 * `stopPhrase`), which scenarios ran, which were cut short, which never started, and the rules
 * only those declare.
 */
export function scenarioRunFinding(progress: readonly ScenarioProgress[], stop: string): Finding | null {
  const sentence = scenarioRunSentence(progress);
  if (!sentence) return null;
  const finished = progress.filter((p) => p.status === 'finished');
  const unfinished = progress.filter((p) => p.status !== 'finished');
  const done = new Set(finished.flatMap((p) => p.rules));
  const rules = [...new Set(unfinished.filter((p) => p.status !== 'started').flatMap((p) => p.rules))].filter((r) => !done.has(r)).sort();
  const head = stop.charAt(0).toUpperCase() + stop.slice(1);
  const count = `${finished.length} of ${progress.length} scenario${progress.length === 1 ? '' : 's'} ran to ${finished.length === 1 ? 'its' : 'their'} end${finished.length ? ` (${names(finished)})` : ''}`;
  const rest = scenarioRunSentence(unfinished);
  const tail = rules.length ? `. The rules only these declare were exercised only as far as they got: left not exercised, they say nothing about the service` : '';
  return { id: 'scenarios-not-finished', level: 'warning', text: `${head}: ${count}; ${rest}${tail}.`, ...(rules.length ? { rules } : {}) };
}
