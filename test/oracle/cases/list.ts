import { create, err, list, K } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

const A = 'pay_00000000-0000-4000-8000-00000000000a';
const B = 'pay_00000000-0000-4000-8000-00000000000b';
const C = 'pay_00000000-0000-4000-8000-00000000000c';
const three = () => [create({ id: A, p: { created: 1_700_000_001 } }), create({ id: B, t: 20, p: { created: 1_700_000_002 } }), create({ id: C, t: 40, p: { created: 1_700_000_003 } })];

export const LIST_CASES: CaseTable = {
  'list-envelope': {
    keeps: () => [list([A])],
    violates: () => [{ ...list([A], { seq: 1 }), list: { ...list([A]).list!, object: 'payments', url: '/v1/payment' } }],
    seqs: [1],
    message: /object "payments", url/,
  },
  'list-newest-first': {
    keeps: () => [list([C, B, A], { created: [3, 2, 2] })],
    violates: () => [list([A, B], { seq: 2, created: [1, 2] })],
    seqs: [2],
  },
  'list-limit': {
    keeps: () => [list([A, B], { sent: { list: { limit: 2 } } }), list([], { status: 400, list: null, error: err('parameter_invalid', { param: 'limit' }), sent: { list: { limit: 101 } } })],
    violates: () => [list([A, B, C], { seq: 3, sent: { list: { limit: 2 } } })],
    seqs: [3],
  },
  'list-unknown-cursor': {
    keeps: () => [...three(), list([], { t: 100, status: 400, list: null, error: err('parameter_invalid', { param: 'starting_after' }), sent: { list: { startingAfter: 'pay_never' } } }), list([A], { t: 200, sent: { list: { startingAfter: B } } })],
    violates: () => [list([], { seq: 4, sent: { list: { startingAfter: 'pay_never' } } })],
    seqs: [4],
  },
  'list-walk-exactly-once': {
    keeps: () => [...three(), list([C, B], { t: 100, group: 'w', hasMore: true, sent: { list: { limit: 2 } } }), list([A], { t: 200, group: 'w', sent: { list: { limit: 2, startingAfter: B } } })],
    violates: () => [...three(), list([C, B], { seq: 5, t: 100, group: 'w', hasMore: true, sent: { list: { limit: 2 } } }), list([B], { seq: 6, t: 200, group: 'w', sent: { list: { limit: 2, startingAfter: B } } })],
    seqs: [5, 6],
    message: /twice/,
  },
  'list-status-filter': {
    keeps: () => [list([A], { statuses: ['succeeded'], sent: { list: { status: 'succeeded' } } }), list([], { status: 400, list: null, error: err('parameter_invalid'), sent: { list: { status: 'bogus' } } })],
    violates: () => [list([A, B], { seq: 7, statuses: ['succeeded', 'failed'], sent: { list: { status: 'succeeded' } } })],
    seqs: [7],
  },
  'list-created-bounds': {
    keeps: () => [...three(), list([C, B], { t: 100, created: [1_700_000_003, 1_700_000_002], sent: { list: { createdGte: 1_700_000_002, createdLt: 1_700_000_004 } } })],
    violates: () => [...three(), list([C], { seq: 8, t: 100, created: [1_700_000_003], sent: { list: { createdGte: 1_700_000_002 } } })],
    seqs: [8],
    message: /inclusive/,
  },
  'list-filters-before-pagination': {
    keeps: () => [...three(), list([C, B, A], { t: 100 }), list([C, B], { t: 100, hasMore: true, sent: { list: { limit: 3 } } })],
    violates: () => [create({ seq: 1, id: A }), create({ seq: 2, id: B, t: 20 }), list([B], { seq: 3, t: 100 })],
    seqs: [3, 1],
  },
  'list-mode-isolation': {
    keeps: () => [create({ id: A }), create({ key: K.live, id: B, p: { livemode: true } }), list([A], { t: 100 })],
    violates: () => [create({ id: A }), create({ seq: 2, key: K.live, id: B, p: { livemode: true } }), list([A, B], { seq: 3, t: 100, livemodes: [false, false] })],
    seqs: [3, 2],
  },
};
