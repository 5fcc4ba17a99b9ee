/**
 * Do these shards belong to one test of one service? `paystorm merge` judges its shards as one
 * run, so shards of two runs (two service instances, two deployments, test and live, two tests
 * at different times) make a verdict about no service: a list on one instance cannot show the
 * payments made on the other, and the oracle would call that a violation neither committed.
 *
 * `shardProfile` reads what a shard says about itself (run and end records); `compareShards`,
 * a pure function of those profiles, returns what differs. What is normal for one test is not
 * a difference: different key labels per shard (k6-operator gives each runner its own key set),
 * the same label in two shards, different scripts, different execution segments.
 */
import type { EndRecord, HistoryRecord, RunRecord } from './schema.ts';

/**
 * How far apart two shards' wall-clock spans may be and still count as one test, ms. The
 * spans are on the service's clock when the shard's answers carried Date headers (merge.ts),
 * but a shard without them keeps its machine's clock, which on a pod without a synchronised
 * clock can be off by tens of seconds; runners of one k6-operator TestRun also start a few
 * seconds apart. A minute covers both; two tests run one after the other are usually further apart.
 */
export const SHARD_SPAN_SLACK_MS = 60_000;

/** What a shard says about the test it belongs to. */
export interface ShardProfile {
  /** The shard as the user named it. */
  source: string;
  /** The target's URL as recorded; null when unknown (k6 output without run facts). */
  target: string | null;
  presentation: 'A' | 'B' | null;
  /** Key modes of the shard's keys (test, live), sorted. */
  modes: ('test' | 'live')[];
  /** Key labels, in the run record's order. */
  keys: string[];
  /** X-RateLimit-Limit the shard learned, null when it did not. */
  rateLimit: number | null;
  /** Wall-clock span on the merged clock (epoch ms). */
  start: number;
  end: number;
}

export type ShardDifferenceKind = 'target' | 'presentation' | 'key-mode' | 'rate-limit' | 'time';

export interface ShardDifference {
  kind: ShardDifferenceKind;
  /** The shards the difference is between. */
  shards: string[];
  /** One sentence naming the shards and what differs. */
  text: string;
}

export interface ShardComparison {
  differences: ShardDifference[];
  /** What could not be compared (a shard whose target is unknown). */
  warnings: string[];
}

const UNKNOWN_TARGET = /^unknown\b/;

/**
 * The URL's identity: scheme, host (lower case), port (the scheme's default filled in) and base
 * path without trailing slash; null when it is not an http(s) URL.
 */
export function normaliseTarget(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.protocol}//${u.hostname.toLowerCase()}:${port}${u.pathname.replace(/\/+$/, '')}`;
}

/** A shard's profile from its records; `correctionMs` puts its wall times on the merged clock. */
export function shardProfile(source: string, records: readonly HistoryRecord[], correctionMs = 0): ShardProfile {
  const run = records.find((r): r is RunRecord => r.kind === 'run');
  if (!run) throw new Error(`${source}: no run record`);
  let end: EndRecord | undefined;
  let lastMs = 0;
  for (const r of records) {
    if (r.kind === 'end') end = r;
    else if (r.kind === 'exchange' || r.kind === 'fault') lastMs = Math.max(lastMs, r.tEnd);
    else if (r.kind === 'webhook') lastMs = Math.max(lastMs, r.tReceived);
  }
  return shardProfileOf(source, run, end, lastMs, correctionMs);
}

/** The same from what the shard says of itself: its run record, last end record, and latest completion on its run clock. */
export function shardProfileOf(source: string, run: RunRecord, end: EndRecord | undefined, lastMs: number, correctionMs = 0): ShardProfile {
  const url = run.target.url;
  return {
    source,
    target: UNKNOWN_TARGET.test(url) || normaliseTarget(url) === null ? null : url,
    presentation: run.target.presentation ?? null,
    modes: [...new Set(run.keys.map((k) => k.mode))].sort(),
    keys: run.keys.map((k) => k.label),
    rateLimit: run.rateLimit?.limit ?? null,
    start: run.wall + correctionMs,
    end: (end ? end.wall : run.wall + lastMs) + correctionMs,
  };
}

/** `shard a` or `shards a, b`. */
function shardsNamed(sources: readonly string[]): string {
  return sources.length === 1 ? `shard ${sources[0]}` : `shards ${sources.join(', ')}`;
}

/** Groups of shards by a value (in the shards' order); shards whose value is null are left out. */
function groupsBy<T>(profiles: readonly ShardProfile[], valueOf: (p: ShardProfile) => T | null, identity: (v: T) => string = String): { value: T; sources: string[] }[] {
  const groups = new Map<string, { value: T; sources: string[] }>();
  for (const p of profiles) {
    const v = valueOf(p);
    if (v === null) continue;
    const id = identity(v);
    const g = groups.get(id);
    if (g) g.sources.push(p.source);
    else groups.set(id, { value: v, sources: [p.source] });
  }
  return [...groups.values()];
}

/** `shard a targets X, shard b targets Y` from groups, each verb agreeing with its subject. */
function listGroups<T>(groups: readonly { value: T; sources: string[] }[], phrase: (value: T, plural: boolean) => string): string {
  return groups.map((g) => `${shardsNamed(g.sources)} ${phrase(g.value, g.sources.length > 1)}`).join(', ');
}

const count = (n: number): string => ['two', 'three', 'four'][n - 2] ?? String(n);
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What differs between shards that should be one test of one service (nothing for one shard). */
export function compareShards(profiles: readonly ShardProfile[]): ShardComparison {
  const differences: ShardDifference[] = [];
  const warnings: string[] = [];
  if (profiles.length < 2) return { differences, warnings };

  const targets = groupsBy(profiles, (p) => p.target, (url) => normaliseTarget(url)!);
  if (targets.length > 1) {
    differences.push({
      kind: 'target',
      shards: targets.flatMap((g) => g.sources),
      text: `${listGroups(targets, (url, plural) => `target${plural ? '' : 's'} ${url}`)}: they are runs against ${count(targets.length)} services (or ${count(targets.length)} instances of one), and a payment made on one is not seen on the other`,
    });
  }
  for (const p of profiles) {
    if (p.target === null) warnings.push(`shard ${p.source}: its target is unknown (k6 output without paystorm's run facts), so it could not be compared with the other shards' targets`);
  }

  const presentations = groupsBy(profiles, (p) => p.presentation);
  if (presentations.length > 1) {
    differences.push({
      kind: 'presentation',
      shards: presentations.flatMap((g) => g.sources),
      text: `${listGroups(presentations, (v) => `saw presentation ${v}`)}: two deployments of the service`,
    });
  }

  // Keys of one mode only on both sides, and not the same mode: two environments (test and live data are apart).
  const single = groupsBy(profiles, (p) => (p.modes.length === 1 ? p.modes[0] : null));
  if (single.length > 1) {
    differences.push({
      kind: 'key-mode',
      shards: single.flatMap((g) => g.sources),
      text: `${listGroups(single, (mode, plural) => `use${plural ? '' : 's'} ${mode} keys only`)}: test and live mode are two environments, whose payments the other cannot see`,
    });
  }

  const limits = groupsBy(profiles, (p) => p.rateLimit);
  if (limits.length > 1) {
    differences.push({
      kind: 'rate-limit',
      shards: limits.flatMap((g) => g.sources),
      text: `${listGroups(limits, (limit) => `learned X-RateLimit-Limit ${limit}`)}: ${count(limits.length)} services configured differently`,
    });
  }

  // The spans, widened by the slack, must make one stretch of time: a gap means two tests.
  const bySpan = [...profiles].sort((a, b) => a.start - b.start);
  let latest = bySpan[0];
  for (const p of bySpan.slice(1)) {
    const gapMs = p.start - latest.end;
    if (gapMs > SHARD_SPAN_SLACK_MS) {
      differences.push({
        kind: 'time',
        shards: [latest.source, p.source],
        text: `shard ${latest.source} ran ${isoSeconds(latest.start)} to ${isoSeconds(latest.end)}, shard ${p.source} ${isoSeconds(p.start)} to ${isoSeconds(p.end)}: ${Math.round(gapMs / 1000)} s apart, more than the ${SHARD_SPAN_SLACK_MS / 1000} s allowed for the clocks of different machines, so they are two tests, not shards of one`,
      });
    }
    if (p.end > latest.end) latest = p;
  }
  return { differences, warnings };
}

/** Each shard's key labels, for context (different labels per shard are normal: a k6-operator runner has its own). */
function describeShardKeys(profiles: readonly ShardProfile[]): string {
  return profiles.map((p) => `${p.source}: ${p.keys.length ? p.keys.join(', ') : 'none'}`).join('; ');
}

/** The refusal: what differs, each shard's keys, and how to merge anyway. */
export function mixedShardsRefusal(profiles: readonly ShardProfile[], differences: readonly ShardDifference[]): string {
  return (
    `these shards are not one test of one service: ${differences.map((d) => d.text).join('; ')}. ` +
    `Keys per shard: ${describeShardKeys(profiles)}. ` +
    'Judged as one run, their histories would show violations no service committed. Merge shards of one test (one paystorm run, one k6-operator TestRun), ' +
    'or merge them anyway with --allow-mixed-shards (the report then warns what differed).'
  );
}
