/**
 * A map of notes by payment id that keeps in the heap only the notes used lately: a note not read
 * or written in the last `quietAfter` records judged goes to a scratch file, and comes back the
 * next time its payment is named (a late read, a list, a retry). Most payments of a soak go quiet
 * for good once settled, so the heap holds about the payments still in play, and an index entry
 * (id and file offset) for each of the others.
 *
 * What comes back is what went out: notes are written with v8's serializer (the structured clone:
 * undefined, NaN, -0, nested objects and arrays as they were), so where a note was kept cannot
 * change a verdict. Notes must be plain data (no functions, no class instances), and a note
 * changed after `set` must be `set` again (the store cannot see changes to a note it wrote out).
 * The scratch file is unlinked as soon as it is opened, as lib/spill.ts's are.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { countScratchBytes, spillSettings } from './spill.ts';

const closeOnCollect = new FinalizationRegistry<number>((fd) => closeSync(fd));
let files = 0;
let noted = 0;
const EMPTY = Buffer.alloc(0);

/** Notes written out to scratch files by this thread so far (tests: a store that should have let notes go did). */
export function quietNotesWritten(): number {
  return noted;
}

interface Held<V> {
  note: V;
  /** The records judged when the note was last read or written. */
  used: number;
}

export class QuietStore<V> {
  /** Every note, in the order it was first set: in the heap (its Held) or in the file (the offset of its length-prefixed bytes). */
  private readonly notes = new Map<string, Held<V> | number>();
  /**
   * The uses of notes in the heap, oldest first: (id, record) pairs, one per note and record that
   * used it. A pair whose note was used again since is passed over when it comes up. An array with
   * a moving head, not a Map kept in use order: a Map's deleted entries stay as holes that every
   * walk from its start steps over again.
   */
  private queueIds: string[] = [];
  private queueUsed: number[] = [];
  private head = 0;
  private fd: number | null = null;
  private end = 0;
  private readonly quietAfter: number;

  /**
   * `clock`: the records judged so far (the ledger's count), by which a note's last use is told;
   * `quietAfter`: records after which a note unused since leaves the heap (default spillSettings.quietAfter).
   */
  constructor(
    private readonly clock: { readonly records: number },
    quietAfter = spillSettings.quietAfter,
  ) {
    this.quietAfter = Math.max(1, quietAfter);
  }

  /** Notes held, in the heap or the file. */
  get size(): number {
    return this.notes.size;
  }

  has(id: string): boolean {
    return this.notes.has(id);
  }

  /**
   * The note of a payment (read back from the file if it had gone quiet), or undefined. It may be
   * changed in place while the same record is judged; after that, change it only by `set`.
   */
  get(id: string): V | undefined {
    const use = this.clock.records;
    const slot = this.notes.get(id);
    if (slot === undefined) return undefined;
    if (typeof slot !== 'number') {
      this.use(id, slot, use);
      return slot.note;
    }
    const h: Held<V> = { note: this.read(slot), used: use };
    this.notes.set(id, h);
    this.queue(id, use);
    this.letQuietGo();
    return h.note;
  }

  set(id: string, note: V): void {
    const use = this.clock.records;
    const slot = this.notes.get(id);
    if (slot !== undefined && typeof slot !== 'number') {
      slot.note = note;
      this.use(id, slot, use);
      return;
    }
    this.notes.set(id, { note, used: use });
    this.queue(id, use);
    this.letQuietGo();
  }

  /**
   * The note of a payment without using it: one in the file is read back for the caller and not
   * kept (end-of-run checks that look up every payment once). Not to be changed.
   */
  peek(id: string): V | undefined {
    const slot = this.notes.get(id);
    return slot === undefined ? undefined : typeof slot === 'number' ? this.read(slot) : slot.note;
  }

  /**
   * Every note, in the order each was first set, those in the file read back for the walk (and not
   * kept): the end-of-run checks walk them as they walked a Map. The store must not be used meanwhile.
   */
  *entries(): Generator<[string, V]> {
    for (const [id, slot] of this.notes) yield [id, typeof slot === 'number' ? this.read(slot) : slot.note];
  }

  /** A held note used: queued again, once per record that uses it. */
  private use(id: string, h: Held<V>, use: number): void {
    if (h.used !== use) {
      h.used = use;
      this.queue(id, use);
    }
    this.letQuietGo();
  }

  private queue(id: string, use: number): void {
    this.queueIds.push(id);
    this.queueUsed.push(use);
  }

  /** Writes out the notes unused for `quietAfter` records, from the oldest use queued. */
  private letQuietGo(): void {
    const before = this.clock.records - this.quietAfter;
    const ids = this.queueIds;
    const used = this.queueUsed;
    let head = this.head;
    while (head < ids.length && used[head] <= before) {
      const id = ids[head];
      const slot = this.notes.get(id);
      // Still in the heap, and not used since this use: quiet.
      if (slot !== undefined && typeof slot !== 'number' && slot.used === used[head]) this.notes.set(id, this.write(slot.note));
      head++;
    }
    // The consumed front is dropped once it is most of the queue (amortized: each pair is copied at most once per halving).
    if (head > 4096 && head * 2 > ids.length) {
      this.queueIds = ids.slice(head);
      this.queueUsed = used.slice(head);
      head = 0;
    }
    this.head = head;
  }

  /**
   * Notes are appended to a buffer written out a megabyte at a time (a write a note was most of
   * the store's cost), and read back through a window of the file read 256 kB at a time (the end
   * of a run looks up quiet notes about in the order they were written).
   */
  private pending = EMPTY;
  private pendingBytes = 0;
  /** Bytes of the file written out; `end` counts the pending ones too. */
  private flushed = 0;
  private window: Buffer | null = null;
  private windowAt = 0;
  private windowBytes = 0;

  private write(note: V): number {
    if (this.fd === null) this.fd = openScratch(this);
    const body = serialize(note);
    const size = 4 + body.length;
    if (this.pendingBytes + size > this.pending.length) {
      this.flush();
      // Made at the first note written: a store that never lets a note go costs no buffer.
      if (size > this.pending.length) this.pending = Buffer.allocUnsafe(Math.max(size, 1 << 20));
    }
    this.pending.writeUInt32LE(body.length, this.pendingBytes);
    body.copy(this.pending, this.pendingBytes + 4);
    this.pendingBytes += size;
    const at = this.end;
    this.end += size;
    noted++;
    countScratchBytes(size);
    return at;
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    try {
      let put = 0;
      while (put < this.pendingBytes) put += writeSync(this.fd!, this.pending, put, this.pendingBytes - put, this.flushed + put);
    } catch (e) {
      throw new Error(`the judge could not write its scratch file in ${tmpdir()} (${(e as Error).message}): free some space there, or set TMPDIR to a directory with room`, { cause: e });
    }
    this.flushed += this.pendingBytes;
    this.pendingBytes = 0;
  }

  private read(at: number): V {
    // Still in the buffer: no read at all.
    if (at >= this.flushed) {
      const o = at - this.flushed;
      const len = this.pending.readUInt32LE(o);
      return deserialize(this.pending.subarray(o + 4, o + 4 + len)) as V;
    }
    const head = this.bytesAt(at, 4);
    const len = head.readUInt32LE(0);
    return deserialize(this.bytesAt(at + 4, len)) as V;
  }

  /** `n` bytes of the written-out file at `at`, through the read window (refilled from `at` when it does not hold them). */
  private bytesAt(at: number, n: number): Buffer {
    if (this.window === null || at < this.windowAt || at + n > this.windowAt + this.windowBytes) {
      const want = Math.max(n, 1 << 18);
      if (this.window === null || this.window.length < want) this.window = Buffer.allocUnsafe(want);
      const bytes = Math.min(want, this.flushed - at);
      readExactly(this.fd!, this.window.subarray(0, bytes), at);
      this.windowAt = at;
      this.windowBytes = bytes;
    }
    return this.window.subarray(at - this.windowAt, at - this.windowAt + n);
  }
}

function readExactly(fd: number, buf: Buffer, at: number): void {
  let got = 0;
  while (got < buf.length) {
    const r = readSync(fd, buf, got, buf.length - got, at + got);
    if (r === 0) throw new Error(`the judge's scratch file ended early (at byte ${at + got}): it was truncated while the judge ran`);
    got += r;
  }
}

function openScratch(owner: object): number {
  const path = join(tmpdir(), `paystorm-judge-${process.pid}-${threadId}-notes-${++files}.spill`);
  let fd: number;
  try {
    fd = openSync(path, 'wx+');
  } catch (e) {
    throw new Error(`the judge could not open a scratch file in ${tmpdir()} (${(e as Error).message}): set TMPDIR to a directory it can write`, { cause: e });
  }
  unlinkSync(path);
  closeOnCollect.register(owner, fd);
  return fd;
}
