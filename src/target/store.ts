/**
 * Payments in memory: a Map by id, plus one array per merchant+mode in
 * creation order (created seconds never decrease along it, ties keep the
 * global sequence), so a page is a walk backwards from the cursor's position.
 */
import { SYSTEM_CLOCK, type ServiceClock } from './clock.ts';
import type { Mode, PaymentStatus } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import type { PaymentRecord } from './model.ts';
import { partitionOf } from './auth.ts';

export interface ListQuery {
  limit: number;
  /** A record already checked to be in the caller's partition (or undefined). */
  cursor?: PaymentRecord;
  status?: PaymentStatus;
  createdGte?: number;
  createdLt?: number;
}

export class PaymentStore {
  private readonly byId = new Map<string, PaymentRecord>();
  private readonly lists = new Map<string, PaymentRecord[]>();
  private readonly byReference = new Map<string, PaymentRecord>();
  private seq = 0;
  private lastCreatedMs = 0;

  constructor(
    private readonly bugs: BugFlags,
    private readonly clock: ServiceClock = SYSTEM_CLOCK,
  ) {}

  nextSeq(): number {
    return ++this.seq;
  }

  /** Creation time that never goes backwards, so list order and creation order agree. */
  nextCreatedMs(): number {
    this.lastCreatedMs = Math.max(this.lastCreatedMs, this.clock.now());
    return this.lastCreatedMs;
  }

  add(p: PaymentRecord): void {
    let list = this.lists.get(p.partition);
    if (!list) this.lists.set(p.partition, (list = []));
    p.listIndex = list.length;
    list.push(p);
    this.byId.set(p.id, p);
    if (p.merchantReference !== null) this.byReference.set(`${p.partition}\u0000${p.merchantReference}`, p);
  }

  get(id: string): PaymentRecord | undefined {
    return this.byId.get(id);
  }

  /** Only for the seeded bug that loses payments: the record disappears from every view. */
  drop(p: PaymentRecord): void {
    p.deleted = true;
    this.byId.delete(p.id);
  }

  byMerchantReference(partition: string, ref: number): PaymentRecord | undefined {
    return this.byReference.get(`${partition}\u0000${ref}`);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Newest first; filters apply before the page is cut (LIST-8). */
  list(merchant: string, mode: Mode, q: ListQuery): { data: PaymentRecord[]; hasMore: boolean } {
    if (this.bugs['list-leaks-live'] || this.bugs['list-oldest-first'] || this.bugs['list-filter-after-page']) return this.listBuggy(merchant, mode, q);
    const list = this.lists.get(partitionOf(merchant, mode)) ?? [];
    let i = q.cursor ? q.cursor.listIndex - (this.bugs['list-cursor-skip'] ? 2 : 1) : list.length - 1;
    if (q.createdLt !== undefined) i = Math.min(i, lastIndexBefore(list, q.createdLt));
    const gteExclusive = this.bugs['list-gte-exclusive'];
    const data: PaymentRecord[] = [];
    let hasMore = false;
    for (; i >= 0; i--) {
      const p = list[i];
      if (q.createdGte !== undefined && (gteExclusive ? p.created <= q.createdGte : p.created < q.createdGte)) break;
      // The filter takes presentation B's set: `pending` also finds presentation A's PROCESSING (outcome not known).
      if (p.deleted || (q.status !== undefined && p.status !== q.status && !(q.status === 'pending' && p.status === 'processing'))) continue;
      if (data.length === q.limit) {
        hasMore = true;
        break;
      }
      data.push(p);
    }
    return { data, hasMore };
  }

  /** The seeded list bugs that change the walk itself: simple, slow, wrong on purpose. */
  private listBuggy(merchant: string, mode: Mode, q: ListQuery): { data: PaymentRecord[]; hasMore: boolean } {
    let all = (this.lists.get(partitionOf(merchant, mode)) ?? []).filter((p) => !p.deleted);
    if (this.bugs['list-leaks-live']) {
      const other = this.lists.get(partitionOf(merchant, mode === 'test' ? 'live' : 'test')) ?? [];
      all = [...all, ...other.filter((p) => !p.deleted)].sort((a, b) => a.seq - b.seq);
    }
    const ordered = this.bugs['list-oldest-first'] ? all : [...all].reverse();
    const start = q.cursor ? ordered.findIndex((p) => p.id === q.cursor!.id) + 1 : 0;
    const inRange = (p: PaymentRecord) => (q.createdGte === undefined || p.created >= q.createdGte) && (q.createdLt === undefined || p.created < q.createdLt);
    const matches = (p: PaymentRecord) => inRange(p) && (q.status === undefined || p.status === q.status);
    const rest = ordered.slice(start);
    if (this.bugs['list-filter-after-page']) {
      const page = rest.filter(inRange).slice(0, q.limit);
      const data = page.filter(matches);
      return { data, hasMore: data.length === q.limit && rest.length > q.limit };
    }
    const filtered = rest.filter(matches);
    return { data: filtered.slice(0, q.limit), hasMore: filtered.length > q.limit };
  }
}

/** Index of the last payment created before `lt` (seconds), or -1. */
function lastIndexBefore(list: PaymentRecord[], lt: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].created < lt) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

