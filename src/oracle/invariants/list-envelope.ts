import { API_PATHS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { is2xx, withoutQuery } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/**
 * LIST-1: a list answer is {object: "list", data, has_more, url: the list path}. The paths are
 * "relative to" the base address, so on a deployment mounted under a path (`https://host/api`)
 * the list path is `/api/v1/payments`; both that and `/v1/payments` are accepted.
 */
const invariant: Invariant = {
  id: 'list-envelope',
  title: 'The list response has object "list", data, has_more and url (the list path)',
  rules: ['LIST-1'],
  create(ctx) {
    const f = new Findings();
    const accepted = new Set<string>([API_PATHS.payments]);
    try {
      const base = new URL(ctx.run?.target.url ?? '').pathname.replace(/\/+$/, '');
      if (base) accepted.add(base + API_PATHS.payments);
    } catch {
      // No target URL (a history without a run record): the spec's path alone.
    }
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list' || !is2xx(rec.status)) return;
        // A body too long to parse (over 4 MiB) was not read: LIST-3 judges its size.
        if (rec.oversizedBodyChars !== undefined) return;
        f.check();
        const l = rec.list;
        const problems: string[] = [];
        if (!l) problems.push('no data array');
        else {
          if (l.object !== 'list') problems.push(`object ${show(l.object)}`);
          if (l.hasMore === null) problems.push('has_more is not a boolean');
          // The origin is cut only when there is one (a regex replace per list answer otherwise).
          const path = typeof l.url === 'string' ? withoutQuery(l.url.includes('://') ? l.url.replace(/^[a-z]+:\/\/[^/]+/i, '') : l.url) : null;
          if (path === null || !accepted.has(path)) problems.push(`url ${show(l.url)}`);
        }
        if (problems.length) f.violation(evidence(`list answer: ${problems.join(', ')}`, [rec]));
      },
      finish: () => f.outcome('no list request was answered 2xx'),
    };
  },
};
export default invariant;
