/**
 * Do shards belong to one test of one service (src/history/shard-compat.ts)? The comparison
 * is a pure function of what each shard says about itself: what differs is named with the
 * shards it is between; what is normal for one test (a key set per k6-operator runner, the
 * same key in two shards, a few seconds between runners' starts) is not a difference.
 */
import { describe, expect, it } from 'vitest';
import { compareShards, mixedShardsRefusal, normaliseTarget, shardProfile, SHARD_SPAN_SLACK_MS, type ShardProfile } from '../../src/history/shard-compat.ts';
import { ex, runRec, RUN_WALL } from '../oracle/fixtures.ts';
import { HISTORY_VERSION, type EndRecord } from '../../src/history/index.ts';

const T0 = Date.UTC(2026, 10, 28, 12, 45, 0);

function profile(source: string, o: Partial<ShardProfile> = {}): ShardProfile {
  return {
    source,
    target: 'http://127.0.0.1:35595',
    presentation: 'B',
    modes: ['test'],
    keys: [`${source}/test/…b605`],
    rateLimit: 500,
    start: T0,
    end: T0 + 30_000,
    ...o,
  };
}

const kinds = (ps: ShardProfile[]) => compareShards(ps).differences.map((d) => d.kind);

describe('normaliseTarget', () => {
  it('compares scheme, host (any case), port (default filled in) and base path (no trailing slash)', () => {
    expect(normaliseTarget('http://Payments.Example')).toBe('http://payments.example:80');
    expect(normaliseTarget('http://payments.example:80/')).toBe('http://payments.example:80');
    expect(normaliseTarget('HTTPS://payments.example/api/')).toBe('https://payments.example:443/api');
    expect(normaliseTarget('https://payments.example:443/api')).toBe('https://payments.example:443/api');
    // Another port, scheme or base path is another service.
    expect(normaliseTarget('http://127.0.0.1:35595')).not.toBe(normaliseTarget('http://127.0.0.1:41001'));
    expect(normaliseTarget('http://payments.example')).not.toBe(normaliseTarget('https://payments.example'));
    expect(normaliseTarget('http://payments.example/a')).not.toBe(normaliseTarget('http://payments.example/b'));
    expect(normaliseTarget('unknown (k6 output without run facts)')).toBeNull();
  });
});

describe('compareShards', () => {
  it('one test of one service: nothing differs, however the key sets and start times differ', () => {
    const fleet = [0, 1, 2, 3].map((i) =>
      profile(`runner-${i}`, { keys: [`m${i}/test/…000${i}`], start: T0 + i * 2_000, end: T0 + 30_000 + i * 2_000, target: i === 2 ? 'http://127.0.0.1:35595/' : 'http://127.0.0.1:35595' }),
    );
    expect(compareShards(fleet)).toEqual({ differences: [], warnings: [] });
    // The same key in two shards is normal too.
    expect(compareShards([profile('a', { keys: ['acme/test/…b605'] }), profile('b', { keys: ['acme/test/…b605'] })]).differences).toEqual([]);
    // One shard has nothing to differ from.
    expect(compareShards([profile('a', { target: null })])).toEqual({ differences: [], warnings: [] });
  });

  it('two targets: named with their shards', () => {
    const [d] = compareShards([profile('a.k6.json.gz'), profile('b.k6.json.gz', { target: 'http://127.0.0.1:41001' })]).differences;
    expect(d.kind).toBe('target');
    expect(d.shards).toEqual(['a.k6.json.gz', 'b.k6.json.gz']);
    expect(d.text).toMatch(/^shard a\.k6\.json\.gz targets http:\/\/127\.0\.0\.1:35595, shard b\.k6\.json\.gz targets http:\/\/127\.0\.0\.1:41001: they are runs against two services/);
    // Shards of one target are listed together.
    const three = compareShards([profile('a'), profile('b'), profile('c', { target: 'http://other:8080' })]).differences[0];
    expect(three.text).toMatch(/^shards a, b target http:\/\/127\.0\.0\.1:35595, shard c targets http:\/\/other:8080/);
  });

  it('an unknown target is not a difference, but a warning says it could not be compared', () => {
    const c = compareShards([profile('old.k6.json.gz', { target: null }), profile('b')]);
    expect(c.differences).toEqual([]);
    expect(c.warnings).toEqual([expect.stringMatching(/^shard old\.k6\.json\.gz: its target is unknown .*could not be compared/)]);
  });

  it('presentation A vs B: two deployments; unknown on one side is no difference', () => {
    const [d] = compareShards([profile('a', { presentation: 'A' }), profile('b', { presentation: 'B' })]).differences;
    expect(d).toMatchObject({ kind: 'presentation', shards: ['a', 'b'] });
    expect(d.text).toMatch(/shard a saw presentation A, shard b saw presentation B: two deployments/);
    expect(kinds([profile('a', { presentation: null }), profile('b', { presentation: 'B' })])).toEqual([]);
  });

  it('test keys only vs live keys only: two environments; a shard with both modes overlaps either', () => {
    const [d] = compareShards([profile('a'), profile('b', { modes: ['live'], keys: ['acme/live/…9999'] })]).differences;
    expect(d).toMatchObject({ kind: 'key-mode', shards: ['a', 'b'] });
    expect(d.text).toMatch(/shard a uses test keys only, shard b uses live keys only: test and live mode are two environments/);
    expect(kinds([profile('a', { modes: ['live', 'test'] }), profile('b', { modes: ['live'] })])).toEqual([]);
  });

  it('another learned rate limit; unknown on one side is no difference', () => {
    const [d] = compareShards([profile('a'), profile('b', { rateLimit: 120 })]).differences;
    expect(d).toMatchObject({ kind: 'rate-limit', shards: ['a', 'b'] });
    expect(d.text).toMatch(/shard a learned X-RateLimit-Limit 500, shard b learned X-RateLimit-Limit 120/);
    expect(kinds([profile('a', { rateLimit: null }), profile('b', { rateLimit: 120 })])).toEqual([]);
  });

  it('spans: apart by more than the slack is two tests; within it, one', () => {
    const a = profile('a', { start: T0, end: T0 + 30_000 });
    const far = profile('b', { start: T0 + 30_000 + SHARD_SPAN_SLACK_MS + 1_000, end: T0 + 120_000 + SHARD_SPAN_SLACK_MS });
    const [d] = compareShards([far, a]).differences;
    expect(d).toMatchObject({ kind: 'time', shards: ['a', 'b'] });
    expect(d.text).toMatch(/shard a ran 2026-11-28T12:45:00Z to 2026-11-28T12:45:30Z, shard b 2026-11-28T12:46:31Z to .*: 61 s apart, more than the 60 s allowed/);
    expect(kinds([a, profile('b', { start: T0 + 30_000 + SHARD_SPAN_SLACK_MS - 1_000, end: T0 + 200_000 })])).toEqual([]);
    // A long shard spanning two short ones joins them into one stretch of time.
    const long = profile('soak', { start: T0, end: T0 + 600_000 });
    expect(kinds([a, profile('late', { start: T0 + 500_000, end: T0 + 530_000 }), long])).toEqual([]);
    // Two groups of overlapping shards, apart from each other: two tests.
    const later = (s: string) => profile(s, { start: T0 + 300_000, end: T0 + 330_000 });
    expect(compareShards([a, profile('a2'), later('c'), later('d')]).differences.map((x) => x.shards)).toEqual([['a', 'c']]);
  });

  it('the refusal names each difference and each shard\'s keys, and the flag', () => {
    const ps = [profile('a.k6.json.gz', { keys: ['acme/test/…b605', 'globex/test/…7d93'] }), profile('b.k6.json.gz', { target: 'http://127.0.0.1:41001', presentation: 'A', keys: ['acme/test/…b605'] })];
    const text = mixedShardsRefusal(ps, compareShards(ps).differences);
    expect(text).toContain('shard a.k6.json.gz targets http://127.0.0.1:35595, shard b.k6.json.gz targets http://127.0.0.1:41001');
    expect(text).toContain('shard a.k6.json.gz saw presentation B, shard b.k6.json.gz saw presentation A');
    expect(text).toContain('Keys per shard: a.k6.json.gz: acme/test/…b605, globex/test/…7d93; b.k6.json.gz: acme/test/…b605.');
    expect(text).toContain('--allow-mixed-shards');
  });
});

describe('shardProfile', () => {
  it('reads target, presentation, key modes, rate limit and the span (on the merged clock) from the run and end records', () => {
    const run = runRec({ target: { url: 'http://127.0.0.1:35595', embedded: false, presentation: 'A' }, rateLimit: { limit: 120, windowMs: 3000 } });
    const end: EndRecord = { v: HISTORY_VERSION, kind: 'end', tEnd: 9_000, wall: RUN_WALL + 9_000, complete: true, reason: 'done', requests: 1, dropped: 0 };
    const p = shardProfile('a', [run, ex({ t: 100 }), end], -250);
    expect(p).toEqual({
      source: 'a',
      target: 'http://127.0.0.1:35595',
      presentation: 'A',
      modes: ['live', 'test'],
      keys: run.keys.map((k) => k.label),
      rateLimit: 120,
      start: RUN_WALL - 250,
      end: RUN_WALL + 9_000 - 250,
    });
    // Without an end record (a shard cut short), the span ends with its last record.
    expect(shardProfile('a', [run, ex({ t: 100, dur: 40 }), ex({ t: 5_000, dur: 20 })]).end).toBe(RUN_WALL + 5_020);
    // k6 output without run facts: target unknown.
    expect(shardProfile('old', [runRec({ target: { url: 'unknown (k6 output without run facts)', embedded: false, presentation: null } })]).target).toBeNull();
  });
});
