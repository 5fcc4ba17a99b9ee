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
  /** The notes in the heap, by last use, oldest first (a note used again moves to the back). */
  private readonly held = new Map<string, Held<V>>();
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
    this.held.set(id, h);
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
    const h: Held<V> = { note, used: use };
    this.notes.set(id, h);
    this.held.set(id, h);
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

  /** A held note used: to the back of the queue. */
  private use(id: string, h: Held<V>, use: number): void {
    h.used = use;
    this.held.delete(id);
    this.held.set(id, h);
    this.letQuietGo();
  }

  /** Writes out the notes unused for `quietAfter` records, from the oldest (the front of the queue). */
  private letQuietGo(): void {
    const before = this.clock.records - this.quietAfter;
    for (const [id, h] of this.held) {
      if (h.used > before) return;
      this.held.delete(id);
      this.notes.set(id, this.write(h.note));
    }
  }

  private write(note: V): number {
    if (this.fd === null) this.fd = openScratch(this);
    const body = serialize(note);
    const out = Buffer.allocUnsafe(4 + body.length);
    out.writeUInt32LE(body.length, 0);
    body.copy(out, 4);
    const at = this.end;
    try {
      let put = 0;
      while (put < out.length) put += writeSync(this.fd, out, put, out.length - put, at + put);
    } catch (e) {
      throw new Error(`the judge could not write its scratch file in ${tmpdir()} (${(e as Error).message}): free some space there, or set TMPDIR to a directory with room`, { cause: e });
    }
    this.end += out.length;
    noted++;
    countScratchBytes(out.length);
    return at;
  }

  private read(at: number): V {
    const head = Buffer.alloc(4);
    readExactly(this.fd!, head, at);
    const body = Buffer.alloc(head.readUInt32LE(0));
    readExactly(this.fd!, body, at + 4);
    return deserialize(body) as V;
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
