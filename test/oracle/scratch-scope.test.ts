/**
 * A judgement's scratch files (lib/spill.ts) close when it ends, not when its columns are
 * collected: a process that judges many histories keeps no descriptor of the ones it has judged
 * (it ran out of them at about 600 small judgements on pages of two rows), and a column read
 * after its judgement closed its file says so rather than reading whatever file took the number.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import { Float64Column } from '../../src/oracle/lib/paged-column.ts';
import { openScratch, readScratch, scratchFilesOpened, ScratchScope, writeScratch } from '../../src/oracle/lib/spill.ts';
import { syntheticHistory } from '../../bench/lib/synthetic-history.ts';
import { withPagesOnDisk, withTinyPages } from './fixtures.ts';

const openDescriptors = () => readdirSync('/proc/self/fd').length;

describe('scratch files of a judgement', () => {
  it('are all closed when judge() returns, judgement after judgement', async () => {
    const records = [...syntheticHistory(600)];
    const before = openDescriptors();
    const verdicts = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const opened = scratchFilesOpened();
      const { invariants } = await withPagesOnDisk(() => judge(records));
      // It did go to disk: dozens of files a judgement (else the count below proves nothing).
      expect(scratchFilesOpened() - opened).toBeGreaterThan(20);
      verdicts.add(JSON.stringify(invariants.map((r) => [r.id, r.status, r.violations])));
      expect(openDescriptors()).toBe(before);
    }
    // The same verdicts each time: closing the files at the end took nothing from a judgement.
    expect(verdicts.size).toBe(1);
  });

  it('are closed when the pass throws, too', async () => {
    const records = [...syntheticHistory(300)];
    async function* failing() {
      yield* records;
      throw new Error('the history ended mid-frame');
    }
    const before = openDescriptors();
    await expect(withPagesOnDisk(() => judge(failing()))).rejects.toThrow('mid-frame');
    expect(openDescriptors()).toBe(before);
  });

  it('a column read after its scope closed throws, naming why', () => {
    const scope = new ScratchScope();
    const column = scope.within(() => withTinyPages(() => {
      const c = new Float64Column();
      for (let row = 0; row < 10; row++) c.set(row, row * 1.5);
      return c;
    }));
    expect(scope.files.size).toBeGreaterThan(0);
    expect(column.get(9)).toBe(13.5);
    scope.close();
    expect(scope.files.size).toBe(0);
    expect(() => column.get(0)).toThrow(/read or written after its judgement ended/);
    // Setting a row of a page that is on disk reads it back first: a write after the close says so too.
    expect(() => column.set(1, 7)).toThrow(/read or written after its judgement ended/);
  });

  it('a file opened outside any scope is left to its owner, and one scope does not close another\'s', () => {
    const owner = {};
    const loose = openScratch(owner);
    const a = new ScratchScope();
    const b = new ScratchScope();
    const inA = a.within(() => openScratch(owner));
    const inB = b.within(() => a.within(() => openScratch(owner)) && openScratch(owner));
    a.close();
    expect(inA.closed).toBe(true);
    expect(loose.closed).toBe(false);
    expect(inB.closed).toBe(false);
    // A nested within() gives the outer scope back: the last file opened in b is b's.
    expect(b.files.has(inB)).toBe(true);
    const byte = new Uint8Array(1);
    expect(() => readScratch(inA, byte, 0, 'a page')).toThrow(/read or written after its judgement ended/);
    expect(() => writeScratch(inA, byte, 0)).toThrow(/read or written after its judgement ended/);
    b.close();
    expect(inB.closed).toBe(true);
  });
});
