/**
 * `paystorm check` of k6 output judges on a second core while the file is read: the reader
 * hands the exchanges on in start order through a window (StartOrderWindow) once the run facts
 * foresee the run record (readK6's `follower`). These tests hold it to the one rule that
 * matters: the verdict is the one the records sorted after the whole read give, on the real
 * recordings, and when the file does not keep to the window the follower is abandoned and the
 * records are judged the old way, to the same verdict.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readK6 } from '../../src/history/k6.ts';
import { StartOrderWindow } from '../../src/history/k6-follow.ts';
import { K6FollowingJudge } from '../../src/cli/live/live-judge.ts';
import { JudgeOutOfMemory } from '../../src/cli/live/judge-memory.ts';
import { check } from '../../src/oracle/check.ts';
import type { Summary } from '../../src/spec/index.ts';
import { scenarioByName } from '../../scenarios/index.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'paystorm-k6-follow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const checkOptions = { thresholds: [], scenarioThresholds: (n: string) => scenarioByName(n)?.thresholds ?? [] };

/** The verdict judged while reading (null when the follower gave up), the sequential one, and why it gave up. */
async function bothWays(path: string, followWindowMs?: number): Promise<{ followed: Summary | null; sequential: Summary; abandoned: string | null }> {
  const follower = new K6FollowingJudge(path, checkOptions);
  const k6 = await readK6(path, { follower, ...(followWindowMs !== undefined ? { followWindowMs } : {}) });
  const followed = await follower.summary();
  // A follower that finished was handed the records' texts, not kept; one that gave up had the file read again, kept.
  expect(k6.kept).toBe(followed === null);
  if (!k6.kept) expect(() => [...k6.records()]).toThrow(/read the file again/);
  const sequential = (await check((await readK6(path)).records(), checkOptions)).summary;
  return { followed, sequential, abandoned: follower.abandoned };
}

describe('StartOrderWindow', () => {
  /** Exchanges as k6 writes them: by end, each lasting up to maxMs. */
  function byEnd(n: number, maxMs: number, seed: number): { s: number[]; e: number[] } {
    let x = seed;
    const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const rows = Array.from({ length: n }, (_, i) => {
      const s = Math.floor(i * 3 + rnd() * 10);
      return { s, e: s + Math.floor(rnd() * maxMs) };
    }).sort((a, b) => a.e - b.e);
    return { s: rows.map((r) => r.s), e: rows.map((r) => r.e) };
  }

  it('hands every exchange on in the order of a stable sort by start then end, when none lasts longer than the window', () => {
    for (const seed of [1, 2, 3]) {
      const { s, e } = byEnd(2000, 500, seed);
      const out: number[] = [];
      const w = new StartOrderWindow(s, e, 600, (i) => out.push(i));
      for (let i = 0; i < s.length; i++) w.add(i);
      // Handed on before the end: it follows the file, not waiting for all of it.
      expect(out.length).toBeGreaterThan(1000);
      w.drain();
      expect(w.broken).toBeNull();
      const sorted = Array.from(s, (_, i) => i).sort((i, j) => s[i] - s[j] || e[i] - e[j]);
      expect(out).toEqual(sorted);
    }
  });

  it('keeps ties in the file\'s order', () => {
    const s = [5, 5, 5, 1];
    const e = [9, 9, 8, 9];
    const out: number[] = [];
    const w = new StartOrderWindow(s, e, 1000, (i) => out.push(i));
    for (let i = 0; i < s.length; i++) w.add(i);
    w.drain();
    expect(out).toEqual([3, 2, 0, 1]);
  });

  it('says the order broke when an exchange longer than the window is read after later ones were handed on', () => {
    const { s, e } = byEnd(2000, 500, 7);
    const out: number[] = [];
    const w = new StartOrderWindow(s, e, 100, (i) => out.push(i));
    for (let i = 0; i < s.length; i++) w.add(i);
    w.drain();
    expect(w.broken).toMatch(/started \d+ ms before one already handed on was read after it/);
  });
});

const RECORDINGS = ['mixed-30s-clean', 'mixed-sigint-at-12s', 'idempotency-idem-no-inflight-lock', 'rate-limit-clean'];

describeWithShared(
  RECORDINGS.map((n) => `samples/k6/${n}.k6.json.gz`),
  'check of real k6 recordings judged while they are read',
  () => {
    it.each(RECORDINGS)('%s: the same summary as the records sorted after the whole read', { timeout: 60_000 }, async (name) => {
      const { followed, sequential, abandoned } = await bothWays(sharedPath(`samples/k6/${name}.k6.json.gz`));
      if (name === 'rate-limit-clean') {
        // Its run facts say no limit (setup saw none): the records teach it, so it cannot be foreseen.
        expect(followed).toBeNull();
        expect(abandoned).toMatch(/rateLimit/);
        return;
      }
      expect(abandoned).toBeNull();
      expect(followed).toEqual(sequential);
    });

    it.each(['mixed-30s-clean', 'idempotency-idem-no-inflight-lock'])('%s with a 3 s window: the same summary', { timeout: 60_000 }, async (name) => {
      const { followed, sequential, abandoned } = await bothWays(sharedPath(`samples/k6/${name}.k6.json.gz`), 3000);
      expect(abandoned).toBeNull();
      expect(followed).toEqual(sequential);
    });

    it('a judge thread out of memory gives no verdict and says so (check then reports the metrics with every invariant error, rather than judging on its own thread)', { timeout: 60_000 }, async () => {
      const path = sharedPath('samples/k6/mixed-30s-clean.k6.json.gz');
      const follower = new K6FollowingJudge(path, checkOptions, 8);
      await readK6(path, { follower });
      expect(await follower.summary()).toBeNull();
      expect(follower.outOfMemory).toBeInstanceOf(JudgeOutOfMemory);
      expect(follower.outOfMemory!.limitMb).toBe(8);
      expect(follower.abandoned).toMatch(/the judge ran out of memory \(its limit is 8 MB\)/);
    });

    it('a record that does not decode gives the follower up, so the records are judged after the read (where such a record is refused, naming its line)', { timeout: 60_000 }, async () => {
      const path = sharedPath('samples/k6/mixed-30s-clean.k6.json.gz');
      const run = (await readK6(path)).run;
      const follower = new K6FollowingJudge(path, checkOptions);
      follower.start(run, run.wall);
      const text = Buffer.from(JSON.stringify('[2,"create"'));
      follower.exchange(text, 0, text.length, 7);
      expect(follower.abandoned).toMatch(/an exchange record does not decode/);
      expect(await follower.summary()).toBeNull();
    });

    it('a record read out of the window abandons the follower; the file is judged after the read, to the verdict the file in order gets', { timeout: 60_000 }, async () => {
      const lines = gunzipSync(readFileSync(sharedPath('samples/k6/idempotency-idem-no-inflight-lock.k6.json.gz'))).toString('utf8').split('\n');
      const at = lines.findIndex((l) => l.includes('"paystorm_exchange"') && l.includes('paystorm_record'));
      expect(at).toBeGreaterThan(0);
      // The first exchange record moved to the end, before the end marker (the last paystorm_exchange point).
      const moved = lines.splice(at, 1)[0];
      let endAt = -1;
      lines.forEach((l, i) => {
        if (l.includes('paystorm_end')) endAt = i;
      });
      lines.splice(endAt, 0, moved);
      const path = join(dir, 'moved.k6.json.gz');
      writeFileSync(path, gzipSync(lines.join('\n')));
      const { followed, sequential, abandoned } = await bothWays(path, 0);
      expect(followed).toBeNull();
      expect(abandoned).toMatch(/before one already handed on/);
      const original = await bothWays(sharedPath('samples/k6/idempotency-idem-no-inflight-lock.k6.json.gz'));
      expect(sequential.verdict).toBe('fail');
      expect(sequential.invariants).toEqual(original.sequential.invariants);
    });
  },
);
