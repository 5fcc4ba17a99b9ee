import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDuration } from '../../src/cli/duration.ts';
import { loadConfigFile, loadCardsFile } from '../../src/cli/config.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';
import { EXIT, PaystormError } from '../../src/spec/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'paystorm-config-'));
function file(name: string, text: string) {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
function usageError(fn: () => unknown): PaystormError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PaystormError);
    expect((e as PaystormError).exitCode).toBe(EXIT.usage);
    return e as PaystormError;
  }
  throw new Error('expected a usage error');
}

describe('durations', () => {
  it('reads the forms users type', () => {
    expect(parseDuration('500ms', 'x')).toBe(500);
    expect(parseDuration('30s', 'x')).toBe(30_000);
    expect(parseDuration('1h30m', 'x')).toBe(5_400_000);
    // A bare number is ambiguous (ms? s?): refused, with the accepted forms named.
    expect(() => parseDuration('250', '--duration')).toThrow(/--duration: "250" has no unit. .*"250s" for 250 seconds/);
    expect(() => parseDuration(5, 'duration')).toThrow(/duration: 5 has no unit.*500ms, 30s, 5m/);
    expect(() => parseDuration('5 minutes', '--duration')).toThrow(/--duration: expected a duration/);
    expect(() => parseDuration('', '--duration')).toThrow(/--duration/);
  });
});

describe('config file', () => {
  const p0 = file('a-file.txt', 'not a folder');
  it('names the path of each bad field, with the flags checked on the same pass (every problem at once)', () => {
    const p = file('bad.json', JSON.stringify({ rate: -1, windowMs: 1500, keys: 'nope', extra: 1, duration: 5, out: p0 }));
    const e = usageError(() => resolveRunConfig({ maxDuration: '0s' }, loadConfigFile(p), p));
    expect(e.message).toMatch(/bad\.json rate:/);
    expect(e.message).toMatch(/bad\.json windowMs:/);
    expect(e.message).toMatch(/bad\.json keys:/);
    expect(e.message).toMatch(/bad\.json extra: is not an option\. Remove it/);
    expect(e.message).toMatch(/bad\.json duration:/);
    expect(e.message).toMatch(/bad\.json out: .* is a file/);
    expect(e.message).toMatch(/--max-duration: 0s is no time at all/);
    expect(usageError(() => loadConfigFile(file('arr.json', '[1]'))).message).toMatch(/not a JSON object of options/);
  });
  it('rejects a file that is not JSON, naming --config', () => {
    expect(usageError(() => loadConfigFile(file('x.json', '{nope')))).toHaveProperty('message', expect.stringMatching(/^--config: .* not valid JSON/));
    expect(usageError(() => loadConfigFile(join(dir, 'missing.json'))).message).toMatch(/no file/);
  });
  it('flags win over the file', () => {
    const cfg = loadConfigFile(file('ok.json', JSON.stringify({ rate: 5, duration: '10s', thresholds: ['http_reqs: count>1'] })));
    const merged = resolveRunConfig({ rate: 7, thresholds: [] }, cfg);
    expect(merged.rate).toBe(7);
    expect(merged.duration).toBe('10s');
    expect(merged.thresholds).toEqual(['http_reqs: count>1']);
    expect(usageError(() => resolveRunConfig({ duration: 'soon' }, null)).message).toMatch(/--duration/);
  });
});

describe('cards file', () => {
  it('accepts a partial map and refuses unknown outcomes or bad numbers', () => {
    expect(loadCardsFile(file('c.json', JSON.stringify({ succeeds: '4242424242424242' })))).toEqual({ succeeds: '4242424242424242' });
    const e = usageError(() => loadCardsFile(file('c2.json', JSON.stringify({ succeeds: '42', lucky: '4242424242424242' }))));
    expect(e.message).toMatch(/succeeds/);
    expect(e.message).toMatch(/lucky/);
  });
});

describe('--challenge-timeout', () => {
  it('takes a duration, and refuses what is not one', () => {
    expect(resolveRunConfig({ challengeTimeout: '10m' }, null).challengeTimeout).toBe('10m');
    expect(() => resolveRunConfig({ challengeTimeout: 'soon' }, null)).toThrow(PaystormError);
  });
});

describe('up-front checks: every problem at once, before anything starts', () => {
  it('lists each bad flag with its fix', () => {
    const blocker = file('not-a-dir', 'x');
    const e = usageError(() =>
      resolveRunConfig(
        {
          scenarios: ['idempotency', 'nope'],
          duration: '5',
          thresholds: ['http_req_duration: p(99)<800', 'no_such_metric: p(99)<1', 'http_req_failed: rate<<1', 'http_reqs: count<abc'],
          out: join(blocker, 'reports'),
          bugs: ['rl-off-by-one', 'no-such-bug'],
        },
        null,
      ),
    );
    expect(e.message).toMatch(/^7 problems with the options; nothing was run:/);
    expect(e.message).toMatch(/scenario: unknown scenario "nope". Available: .*mixed/);
    expect(e.message).toMatch(/--duration: "5" has no unit. .*"5s"/);
    expect(e.message).toMatch(/--threshold: threshold "no_such_metric: p\(99\)<1": unknown metric "no_such_metric". Known metrics: .*http_req_duration/);
    expect(e.message).toMatch(/--threshold: threshold "http_req_failed: rate<<1" is not in k6's form/);
    expect(e.message).toMatch(/--threshold: threshold "http_reqs: count<abc" is not in k6's form/);
    expect(e.message).toMatch(/--out: .*reports cannot be created: .*not-a-dir is a file/);
    expect(e.message).toMatch(/--bugs: unknown bug name no-such-bug/);
    expect(e.message).not.toContain('"http_req_duration: p(99)<800"');
  });
  it('names the config file field of a value that came from the file', () => {
    const p = file('bare.json', JSON.stringify({ duration: 5, maxDuration: '2m', thresholds: ['bogus'] }));
    const e = usageError(() => resolveRunConfig({ rate: 0 }, loadConfigFile(p), p));
    expect(e.message).toContain(`${p} duration: 5 has no unit`);
    expect(e.message).toContain(`${p} thresholds: threshold "bogus" is not in k6's form`);
    expect(e.message).toMatch(/--rate: /);
    expect(e.message).not.toMatch(/maxDuration/);
  });
  it('checks the flags that only make sense together', () => {
    const e = usageError(() =>
      resolveRunConfig({ target: 'http://127.0.0.1:9', timeScale: 0.1, variant: 'x', webhookPort: 4020, keys: ['svc_live_sk_abcdefghijkl1234'] }, null),
    );
    expect(e.message).toMatch(/--time-scale: only applies to the embedded target/);
    expect(e.message).toMatch(/--variant: unknown variant "x"/);
    expect(e.message).toMatch(/--webhook-port: pass the endpoint's signing secret/);
    expect(e.message).toMatch(/--key: .* is a live key .*--allow-live/);
    expect(e.message).not.toContain('svc_live_sk_abcdefghijkl1234');
  });
  it('checks the default reports/ when no --out is given', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'paystorm-cwd-'));
    writeFileSync(join(cwd, 'reports'), '');
    const before = process.cwd();
    process.chdir(cwd);
    try {
      expect(usageError(() => resolveRunConfig({}, null)).message).toMatch(/^--out: reports is a file, not a directory.*no --out was given/);
    } finally {
      process.chdir(before);
    }
  });
  it('passes good options through unchanged', () => {
    const cfg = { scenarios: ['idempotency'], duration: '30s', thresholds: ['http_req_duration{op:create}: p(99)<800'], out: join(dir, 'out', 'nested'), seed: 3 };
    expect(resolveRunConfig(cfg, null)).toEqual(cfg);
  });
});
