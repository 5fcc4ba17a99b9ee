/**
 * Up-front checks of `paystorm run`'s options: every one runs before the run starts (no
 * service, no receiver, no run folder), and every problem found is reported at once, each
 * naming its flag (or config-file field) and the fix; then paystorm exits 3.
 *
 * Every field config.ts declares with its durationSchema is checked as a duration. To check
 * another new option, append a `RunCheck` to RUN_CHECKS: the RunConfig key it reads (it
 * names the flag, `--kebab-case`, or the config field) and a function returning what is
 * wrong, one sentence with the fix per problem (nothing when the value is good). A check
 * runs only when its option is set; it must not throw, start anything or touch the network.
 */
import { accessSync, constants, existsSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isIP } from 'node:net';
import { makeDirsSync } from '../history/index.ts';
import { EXIT, HEADER_NAME_PATTERN, PaystormError, parseKeyArg, parseProxyArg, type ParsedKey } from '../spec/index.ts';
import { parseFaultSchedule } from '../chaos/fault-schedule.ts';
import { parseThreshold } from '../oracle/thresholds.ts';
import { isRegressionExpr, loadBaseline, parseRegression } from '../oracle/baseline.ts';
import { isDriftExpr, parseDriftThreshold } from '../oracle/trend.ts';
import { SCENARIOS, scenarioByName } from '../../scenarios/index.ts';
import { isScenarioPath } from './scenario-file.ts';
import { dashboardHostProblem } from './run-steps/dashboard.ts';
import { isBugName, BUG_NAMES } from '../target/bugs.ts';
import { variantByName, VARIANT_NAMES, type ServiceVariant } from '../target/variants.ts';
import { parseDuration } from './duration.ts';
import { judgeMemoryMbOf } from './live/judge-memory.ts';
import { durationFields, loadCardsFile, runConfigSchema, type RunConfig } from './config.ts';

export interface RunCheck<K extends keyof RunConfig = keyof RunConfig> {
  /** The option it checks; the check runs only when it is set. */
  key: K;
  /** What is wrong with the value, one sentence with the fix per problem; nothing when it is good. */
  check: (value: NonNullable<RunConfig[K]>, cfg: RunConfig) => string | readonly string[] | undefined | void;
}

/** One problem: where (a flag or a config field) and what is wrong, with the fix. */
export interface OptionProblem {
  field: string;
  message: string;
}

const check = <K extends keyof RunConfig>(key: K, fn: RunCheck<K>['check']): RunCheck => ({ key, check: fn }) as unknown as RunCheck;

/** The message of whatever a parser throws. */
function messageOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Drops a leading `--flag: ` from a parser's message (the problem names its field itself). */
const bare = (m: string) => m.replace(/^--[a-z][a-z-]*(:\s*|\s+(?="))/i, '');

/** A duration option (every field config.ts declares with its durationSchema gets one). */
const duration = (key: keyof RunConfig): RunCheck => ({
  key,
  check: (v) => {
    let ms = NaN;
    const m = messageOf(() => (ms = parseDuration(v as string | number, '')));
    if (m) return m.replace(/^:\s*/, '');
    // Every duration option is a length of time something may take: none can be nothing.
    if (!(ms > 0)) return `${String(v)} is no time at all; pass a duration above zero (e.g. 30s).`;
  },
});

/** Options only the embedded reference service takes. */
/** Run options that configure the embedded reference service, meaningless with --target. */
export const EMBEDDED_ONLY = ['presentation', 'timeScale', 'rateLimit', 'bugs', 'variant'] as const;

/** Where run reports go: an existing directory paystorm may write in, or a path it may create. */
export function outProblem(out: string): string | undefined {
  const abs = resolve(out);
  let p = abs;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  if (!statSync(p).isDirectory()) {
    return p === abs ? `${out} is a file, not a directory. Pass a directory for the reports (default reports/).` : `${out} cannot be created: ${p} is a file. Pass a directory for the reports.`;
  }
  try {
    accessSync(p, constants.W_OK | constants.X_OK);
  } catch {
    return `${p} is not writable by this user, so the reports could not be written. Pass a directory you may write in (--out DIR).`;
  }
  // access() passes where writing still fails (a dangling symlink, /proc, a read-only mount):
  // make the folder and a file in it now, and take away what was made for the test.
  let made: string[] = [];
  try {
    made = makeDirsSync(abs);
    const probe = join(abs, `.paystorm-write-test-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (e) {
    return `${out} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}). Pass a directory you may write in (--out DIR).`;
  } finally {
    // Only the (empty) folders made here, innermost first.
    for (const dir of made.reverse()) rmdirSync(dir);
  }
  return undefined;
}

/**
 * A variant that fixes what a flag also sets (its presentation, its own rate limit as
 * rate-limit-configured does) and a flag that says otherwise: what is wrong, with the fix, and
 * the flag to drop; nothing when they agree or either is unset. Read by the up-front checks and
 * by readRunSettings (run-steps/settings.ts) alike.
 */
export function variantConflicts(variant: ServiceVariant, cfg: { presentation?: string; rateLimit?: number }): { flag: '--presentation' | '--rate-limit'; message: string }[] {
  const out: { flag: '--presentation' | '--rate-limit'; message: string }[] = [];
  if (variant.options.presentation && cfg.presentation && cfg.presentation !== variant.options.presentation) {
    out.push({ flag: '--presentation', message: `--variant ${variant.name} serves presentation ${variant.options.presentation}; drop --presentation ${cfg.presentation}.` });
  }
  if (variant.options.rateLimit !== undefined && cfg.rateLimit !== undefined && cfg.rateLimit !== variant.options.rateLimit) {
    out.push({ flag: '--rate-limit', message: `--variant ${variant.name} admits ${variant.options.rateLimit} requests per window; drop --rate-limit ${cfg.rateLimit}.` });
  }
  return out;
}

export const RUN_CHECKS: RunCheck[] = [
  check('scenarios', (names) => {
    // A path names the user's own scenario file: it is loaded and checked before the first request.
    const missingFiles = names.filter((n) => isScenarioPath(n) && !existsSync(resolve(n)));
    if (missingFiles.length) return `no scenario file at ${missingFiles.join(', ')}. Pass the path of a .ts or .js file that exports a scenario (docs/own-scenarios.md).`;
    const unknown = names.filter((n) => !isScenarioPath(n) && !scenarioByName(n));
    if (unknown.length) return `unknown scenario${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}. Available: ${SCENARIOS.map((x) => x.name).join(', ')} (see paystorm scenarios).`;
  }),
  check('keys', (keys, cfg) => {
    const out: string[] = [];
    const parsed: ParsedKey[] = [];
    if (keys.length === 0) return 'was given no key. Pass --key [merchant:]KEY (e.g. --key acme:svc_test_sk_...), or drop --key to use the embedded target\'s keys.';
    for (const k of keys) {
      const m = messageOf(() => parsed.push(parseKeyArg(k)));
      if (m) out.push(bare(m));
    }
    const live = parsed.filter((k) => k.mode === 'live');
    if (live.length && !cfg.allowLive) {
      out.push(`${live.map((k) => k.label).join(', ')} ${live.length > 1 ? 'are live keys' : 'is a live key'} (real charges). paystorm refuses live keys unless --allow-live; then only read-only and single-payment checks run on them, never load.`);
    }
    const seen = new Set<string>();
    for (const k of parsed) {
      if (seen.has(k.secret)) out.push(`the key ${k.label} is given twice. Pass each key once.`);
      seen.add(k.secret);
    }
    if (parsed.length === keys.length && parsed.length > 0 && !parsed.some((k) => k.mode === 'test')) out.push('at least one test-mode key is needed: load never runs on live keys.');
    return out;
  }),
  check('cards', (cards) => {
    const m = messageOf(() => loadCardsFile(cards));
    return m ? bare(m) : undefined;
  }),
  // Fixed, regression (`< baseline * 1.2`, needs --baseline) and drift (`trend(...) < 10%/h`) thresholds.
  check('thresholds', (exprs, cfg) => [
    ...exprs.map((t) => messageOf(() => (isDriftExpr(t) ? parseDriftThreshold(t) : isRegressionExpr(t) ? parseRegression(t) : parseThreshold(t)))).filter((m): m is string => !!m),
    ...(cfg.baseline === undefined && exprs.some(isRegressionExpr) ? [`a regression threshold (${exprs.find(isRegressionExpr)}) needs a baseline: add --baseline DIR (saved by --save-baseline).`] : []),
  ]),
  check('baseline', (dir) => {
    const m = messageOf(() => loadBaseline(dir));
    return m ? bare(m) : undefined;
  }),
  check('saveBaseline', (dir) => outProblem(dir)),
  check('proxies', (proxies) => proxies.map((p) => messageOf(() => parseProxyArg(p))).filter((m): m is string => !!m).map(bare)),
  check('faults', (faults) => {
    const m = messageOf(() => parseFaultSchedule(faults));
    return m ? bare(m) : undefined;
  }),
  check('bugs', (bugs) => {
    const unknown = bugs.filter((b) => !isBugName(b));
    if (unknown.length) return `unknown bug name${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. Known: ${BUG_NAMES.join(', ')} (see docs/reference-service.md).`;
  }),
  check('variant', (name, cfg) => {
    const v = variantByName(name);
    if (!v) return `unknown variant "${name}". Known: ${VARIANT_NAMES.join(', ')}.`;
    return variantConflicts(v, cfg).map((c) => c.message);
  }),
  check('webhookPort', (_p, cfg) => {
    if (cfg.target && !cfg.webhookSecret) return "pass the endpoint's signing secret (whsec_...) with --webhook-secret too.";
  }),
  check('webhookSecret', (v) => {
    const list = typeof v === 'string' ? [v] : v;
    if (list.some((s) => !s.trim())) return 'an empty signing secret: pass each endpoint\'s secret (whsec_...) once per --webhook-secret.';
  }),
  check('webhookSignatureHeader', (v) => {
    if (!HEADER_NAME_PATTERN.test(v.trim())) return `${JSON.stringify(v)} is not an HTTP header name: pass the service's signature header name, such as Acme-Signature.`;
  }),
  check('sharedKeys', (keys, cfg) => {
    const out: string[] = [];
    const own = new Set<string>();
    for (const k of cfg.keys ?? []) messageOf(() => own.add(parseKeyArg(k).secret));
    for (const k of keys) {
      let parsed: ParsedKey | undefined;
      const m = messageOf(() => (parsed = parseKeyArg(k)));
      if (m) out.push(bare(m));
      else if (parsed!.mode === 'live' && !cfg.allowLive) out.push(`${parsed!.label} is a live key (real charges). paystorm refuses live keys unless --allow-live.`);
      else if (own.has(parsed!.secret)) out.push(`the key ${parsed!.label} is also given with --key. Pass it once: --shared-key marks it shared.`);
    }
    return out;
  }),
  check('out', (out) => outProblem(out)),
  check('dashboard', (port, cfg) => {
    if (port !== 0 && port === cfg.webhookPort) return `port ${port} is also --webhook-port; pass another port for the live page (or 0 for any free one).`;
  }),
  check('dashboardHost', (host, cfg) => {
    if (cfg.dashboard === undefined) return 'sets where the live page listens, but no --dashboard PORT asks for the page: add --dashboard PORT, or drop --dashboard-host.';
    return dashboardHostProblem(host);
  }),
  check('metricsHost', (host, cfg) => metricsHostProblems(host, cfg.metricsPort !== undefined)),
];

/**
 * --metrics-host: an address or host name to listen on, nothing more (no scheme, port or path).
 * Whether this machine has that address is learned when the endpoint opens, still before load.
 */
function metricsHostProblems(host: string, withPort: boolean): string[] {
  const out: string[] = [];
  if (!withPort) out.push('pass --metrics-port too: the host says where the metrics endpoint listens, the port turns it on.');
  if (isIP(host) === 0 && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(host)) {
    out.push(`${JSON.stringify(host)} is not an address or host name: pass an address of this machine such as 127.0.0.1 (the default) or 0.0.0.0 (every interface), without scheme or port.`);
  }
  return out;
}

/** Checks that span options (no one option to hang them on). */
function crossProblems(cfg: RunConfig, fieldOf: (key: keyof RunConfig) => string): OptionProblem[] {
  const out: OptionProblem[] = [];
  // No --out: the default reports/ (RUN_DEFAULTS.out in run-steps/settings.ts) under the current directory must be writable too.
  if (cfg.out === undefined) {
    const p = outProblem('reports');
    if (p) out.push({ field: fieldOf('out'), message: `${p} (no --out was given: the default is reports/ in the current directory)` });
  }
  if (cfg.target) {
    for (const f of EMBEDDED_ONLY) {
      if (cfg[f] !== undefined) out.push({ field: fieldOf(f), message: `only applies to the embedded target; drop it or drop --target.` });
    }
    if (!cfg.keys?.length && !cfg.sharedKeys?.length) out.push({ field: fieldOf('keys'), message: 'pass at least one test key for the target (--key [merchant:]svc_test_sk_...).' });
  }
  return out;
}

/** RunConfig keys whose flag is not their `--kebab-case` (repeatable flags take one value each). */
const FLAG_NAMES: Record<string, string> = { scenarios: 'scenario', keys: '--key', sharedKeys: '--shared-key', thresholds: '--threshold', proxies: '--proxy' };

/** The flag of a RunConfig key: `--kebab-case` unless FLAG_NAMES says otherwise. */
export const flagOf = (key: string) => FLAG_NAMES[key] ?? `--${key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`;

/** Every problem with the options (none when the run may start). */
export function runProblems(cfg: RunConfig, fieldOf: (key: keyof RunConfig) => string = flagOf as (key: keyof RunConfig) => string): OptionProblem[] {
  const problems: OptionProblem[] = [];
  for (const c of [...durationFields().map(duration), ...RUN_CHECKS]) {
    const value = cfg[c.key];
    if (value === undefined) continue;
    let found: string | readonly string[] | undefined | void;
    try {
      found = c.check(value as never, cfg);
    } catch (e) {
      found = (e as Error).message;
    }
    for (const message of typeof found === 'string' ? [found] : (found ?? [])) problems.push({ field: fieldOf(c.key), message });
  }
  problems.push(...crossProblems(cfg, fieldOf));
  return problems;
}

/** The error that lists every problem (exit 3). */
export function problemsError(problems: readonly OptionProblem[]): PaystormError {
  if (problems.length === 1) return new PaystormError(`${problems[0].field}: ${problems[0].message}`, EXIT.usage, problems[0].field);
  return new PaystormError(
    `${problems.length} problems with the options; nothing was run:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`,
    EXIT.usage,
    problems[0].field,
  );
}

/**
 * Merges flags over the config file and validates the result once, before anything starts:
 * every problem (schema, then the checks of run-checks.ts) is listed at once, each naming
 * its flag, or the config file's field when the value came from there (exit 3).
 */
export function resolveRunConfig(flags: RunConfig, file: RunConfig | null, filePath?: string): RunConfig {
  const merged: Record<string, unknown> = { ...(file ?? {}) };
  const fromFlags = new Set<string>();
  for (const [k, v] of Object.entries(flags)) {
    if (v === undefined) continue;
    if (Array.isArray(v) && v.length === 0 && merged[k] !== undefined) continue;
    merged[k] = v;
    fromFlags.add(k);
  }
  const fieldOf = (key: string) => (fromFlags.has(key) || !file ? flagOf(key) : `${filePath ?? 'config file'} ${key}`);
  const problems: OptionProblem[] = [];
  let parsed = runConfigSchema.safeParse(merged);
  if (!parsed.success) {
    // Report the schema's problems, then check what is left (all problems at once).
    for (const i of parsed.error.issues) {
      if (i.code === 'unrecognized_keys') {
        // Only a config file can carry a field no flag has.
        for (const k of i.keys) problems.push({ field: fieldOf(k), message: `is not an option. Remove it; the fields are the run flags in camelCase (${Object.keys(runConfigSchema.shape).join(', ')}).` });
        continue;
      }
      const [top, ...rest] = i.path.map(String);
      const field = top === undefined ? '(options)' : fieldOf(top) + (rest.length ? `.${rest.join('.')}` : '');
      // yargs turns `--rate fast` into NaN: say what is wanted. --judge-memory says it as check and merge do.
      const judgeMemory = top === 'judgeMemory' && rest.length === 0 ? judgeMemoryRefusal(merged.judgeMemory) : null;
      problems.push({ field, message: judgeMemory ?? (/received NaN/.test(i.message) ? 'expected a number' : i.message) });
    }
    const rest = { ...merged };
    for (const i of parsed.error.issues) {
      if (i.path.length) delete rest[String(i.path[0])];
      else if (i.code === 'unrecognized_keys') for (const k of i.keys) delete rest[k];
    }
    parsed = runConfigSchema.safeParse(rest);
  }
  if (parsed.success) problems.push(...runProblems(parsed.data, fieldOf as (key: keyof RunConfig) => string));
  if (problems.length) throw problemsError(problems);
  return parsed.data!;
}

/** Why a --judge-memory value is refused, as `check` and `merge` say it (without the flag's name, which the field gives); null when it is not. */
function judgeMemoryRefusal(value: unknown): string | null {
  try {
    judgeMemoryMbOf(value);
    return null;
  } catch (e) {
    return e instanceof PaystormError ? e.message.replace(/^--judge-memory: /, '') : null;
  }
}
