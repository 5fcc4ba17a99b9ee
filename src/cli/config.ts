/**
 * Options of `paystorm run`, from flags and `paystorm.config.json` (flags win).
 * One zod schema validates both; an error names the path of each bad field and the fix.
 */
import { readFileSync, existsSync } from 'node:fs';
import { z } from 'zod';
import { CARD_OUTCOMES, EXIT, PaystormError } from '../spec/index.ts';
// From its own module, not the index: RunConfig's declarations in the package (dist/types) then
// need no Node types (the index re-exports signature.ts, which uses Buffer).
import type { CardsFile } from '../spec/cards.ts';
import { cardsFileSchema } from './cards-file.ts';
import { JUDGE_MEMORY_MIN_MB } from './live/judge-memory.ts';

/**
 * A duration as a string with its unit ("30s", "5m", "1h30m", "500ms"). A bare number (5, or
 * "5") is refused by the up-front checks (run-checks.ts) with the accepted forms named:
 * a config file's `"duration": 5` used to be read as 5 ms.
 */
const durationSchema = z.union([z.number(), z.string()]);

export const runConfigSchema = z
  .object({
    scenarios: z.array(z.string()).optional(),
    target: z.url({ message: 'a URL such as https://staging.example.com' }).optional(),
    keys: z.array(z.string()).optional(),
    /** --shared-key: keys used like `keys` that other clients may use during the run (marked `shared` in the run record). */
    sharedKeys: z.array(z.string()).optional(),
    allowLive: z.boolean().optional(),
    cards: z.union([z.string(), cardsFileSchema]).optional(),
    duration: durationSchema.optional(),
    rate: z.number().positive().optional(),
    out: z.string().optional(),
    webhookPort: z.number().int().min(0).max(65535).optional(),
    /** The endpoints' signing secrets: one (a string) or one per endpoint (each merchant's, the live one's); a delivery any of them verifies is signed. */
    webhookSecret: z.union([z.string(), z.array(z.string()).min(1, 'at least one signing secret')]).optional(),
    /** The service's own signature header name (e.g. Acme-Signature); default: Service-Signature or any `…-signature` header of the form t=…,v1=…. */
    webhookSignatureHeader: z.string().optional(),
    webhookFailShare: z.number().min(0).max(1).optional(),
    webhookStallShare: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Share (0..1) of test-mode events whose first delivery the receiver holds past the acknowledge time, so a delivery left unanswered is judged (default 0.05 on the embedded target, else 0). Config file only.'),
    /** WH-9: the longest a failed delivery may wait for its retry (the spec sets none); default: judged from the service's own retries, else 5m. */
    webhookRetryWithin: durationSchema.optional(),
    toxiproxy: z.url().optional(),
    proxies: z.array(z.string()).optional(),
    thresholds: z.array(z.string()).optional(),
    seed: z.number().int().optional(),
    maxRequests: z.number().int().positive().optional(),
    maxDuration: durationSchema.optional(),
    requestTimeout: durationSchema.optional(),
    settleBound: durationSchema.optional(),
    /** The target's 3DS challenge time-out (SM-4), when known; the embedded target's is known already. */
    challengeTimeout: durationSchema.optional(),
    /** The service's time-out for one processor call (--upstream-timeout): sizes the upstream faults; the embedded target's is known already. */
    upstreamTimeout: durationSchema.optional(),
    /** Embedded target only. */
    presentation: z.enum(['A', 'B']).optional(),
    timeScale: z.number().positive().max(10).optional(),
    rateLimit: z.number().int().positive().optional(),
    windowMs: z.number().int().min(1000).multipleOf(1000, 'whole seconds (a multiple of 1000)').optional(),
    bugs: z.array(z.string()).optional(),
    /** Embedded target only: a conforming variant of the reference service (src/target/variants.ts). */
    variant: z.string().optional(),
    /** Fault schedule steps; validated by the chaos layer (src/chaos/fault-schedule.ts), whose messages name each step's field. */
    faults: z
      .array(z.any())
      .optional()
      .describe('Fault schedule applied during the run: steps {at, duration, proxy, type, stream?, toxicity?, attributes?} (docs/chaos.md, "Fault schedules"). Config file only.'),
    /** Compare with the baseline in this directory (or baseline.json, or a run directory): regression thresholds (docs/baselines.md). */
    baseline: z.string().optional(),
    /** Save this run's baseline (histograms and counts) into this directory. */
    saveBaseline: z.string().optional(),
    /** Window of the soak drift's per-window figures (default 60s). */
    trendWindow: durationSchema.optional(),
    /** --dashboard PORT: serve the live page on this port (0: any free port) while the run goes (docs/dashboard.md). */
    dashboard: z.number().int().min(0).max(65535).optional(),
    /** The address the live page listens on (default 127.0.0.1: this machine only). */
    dashboardHost: z.string().optional(),
    /** Serve the run's metrics (OpenMetrics) at http://metricsHost:metricsPort/metrics until the verdict is written (docs/metrics.md); 0: any free port. */
    metricsPort: z.number().int().min(0).max(65535).optional(),
    /** The address the metrics endpoint listens on (default 127.0.0.1; 0.0.0.0 to be scraped from other hosts). */
    metricsHost: z.string().optional(),
    /** Stop the run at the first confirmed violation: true for any invariant, or these invariant or rule ids (docs/run.md, Live verdicts). */
    abortOnViolation: z.union([z.boolean(), z.array(z.string())]).optional(),
    /** Rewrite summary.json and report.html with the verdict so far this often (default 5m for a run planned over 15 minutes). */
    snapshotEvery: durationSchema.optional(),
    /** The judge's memory limit in MB (default three quarters of the machine's; src/cli/live/judge-memory.ts). */
    judgeMemory: z.number().int().min(JUDGE_MEMORY_MIN_MB).optional(),
  })
  .strict();
export type RunConfig = z.infer<typeof runConfigSchema>;

/** The fields declared with durationSchema: each is checked as a duration up front (run-checks.ts). */
export function durationFields(): (keyof RunConfig)[] {
  return (Object.entries(runConfigSchema.shape) as [keyof RunConfig, z.ZodType][]).filter(([, t]) => t instanceof z.ZodOptional && t.unwrap() === durationSchema).map(([k]) => k);
}

/** Formats zod issues as `field.path: problem`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], prefix: string): string {
  return issues
    .map((i) => {
      const path = i.path.length ? i.path.map(String).join('.') : '(top level)';
      return `${prefix}${path}: ${i.message}`;
    })
    .join('\n');
}

export function loadConfigFile(path: string): RunConfig {
  if (!existsSync(path)) throw new PaystormError(`--config: no file at ${path}. Pass the path of a paystorm.config.json.`, EXIT.usage, '--config');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new PaystormError(`--config: ${path} is not valid JSON (${(e as Error).message}). Fix the file.`, EXIT.usage, '--config');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new PaystormError(`--config: ${path} is not a JSON object of options (e.g. {"target": "https://…", "keys": ["acme:svc_test_sk_…"]}). Fix the file.`, EXIT.usage, '--config');
  }
  // `$schema` names the file's JSON Schema for editors (schema/config.json); it is no option.
  const { $schema: _schema, ...options } = raw as Record<string, unknown>;
  // Its fields are checked with the flags (resolveRunConfig), so every problem is listed at once.
  return options as RunConfig;
}

export function loadCardsFile(pathOrObject: string | CardsFile): CardsFile {
  if (typeof pathOrObject !== 'string') return pathOrObject;
  if (!existsSync(pathOrObject)) throw new PaystormError(`--cards: no file at ${pathOrObject}. Pass a JSON file mapping outcomes to card numbers.`, EXIT.usage, '--cards');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(pathOrObject, 'utf8'));
  } catch (e) {
    throw new PaystormError(`--cards: ${pathOrObject} is not valid JSON (${(e as Error).message}).`, EXIT.usage, '--cards');
  }
  const parsed = cardsFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new PaystormError(
      `${pathOrObject} has bad fields (allowed: ${CARD_OUTCOMES.join(', ')}):\n${formatIssues(parsed.error.issues, '  ')}`,
      EXIT.usage,
      '--cards',
    );
  }
  return parsed.data;
}

