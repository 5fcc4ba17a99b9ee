import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDuration } from '../../src/cli/duration.ts';
import { loadConfigFile, loadCardsFile, resolveRunConfig } from '../../src/cli/config.ts';
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
    expect(parseDuration('250', 'x')).toBe(250);
    expect(() => parseDuration('5 minutes', '--duration')).toThrow(/--duration: expected a duration/);
    expect(() => parseDuration('', '--duration')).toThrow(/--duration/);
  });
});

describe('config file', () => {
  it('names the path of each bad field', () => {
    const p = file('bad.json', JSON.stringify({ rate: -1, windowMs: 1500, keys: 'nope', extra: 1 }));
    const e = usageError(() => loadConfigFile(p));
    expect(e.message).toMatch(/rate:/);
    expect(e.message).toMatch(/windowMs:/);
    expect(e.message).toMatch(/keys:/);
    expect(e.message).toMatch(/extra/);
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
