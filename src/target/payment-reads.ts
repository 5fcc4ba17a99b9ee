/** The GET answers: one payment by id (PAY-17) and the payment list with its query (LIST rules). */
import type { ServerResponse } from 'node:http';
import { API_PATHS, LIST_PARAMS, type PaymentStatus } from '../spec/index.ts';
import type { ApiKey } from './auth.ts';
import type { BugFlags } from './bugs.ts';
import type { ApiResult, ErrorWriter } from './errors.ts';
import { type HeaderList, JSON_TYPE, decodePathSegment, parseQuery } from './http.ts';
import type { PaymentRecord } from './model.ts';
import type { ServiceOptions } from './options.ts';
import type { Presenter } from './present.ts';
import { respond } from './respond.ts';
import type { PaymentStore } from './store.ts';
import { visibleTo } from './visibility.ts';

export class PaymentReads {
  constructor(
    private readonly store: PaymentStore,
    private readonly presenter: Presenter,
    private readonly errors: ErrorWriter,
    private readonly options: ServiceOptions,
    private readonly bugs: BugFlags,
  ) {}

  retrieve(res: ServerResponse, key: ApiKey, rawId: string, rid: string, rh: HeaderList): void {
    const id = decodePathSegment(rawId);
    const p = this.store.get(id);
    // Seeded PAY-17 bug: an id nothing has is treated as an invalid parameter.
    if (!p && this.bugs['pay-unknown-id-400']) return respond(res, this.errors.make(rid, 'parameter_invalid', `Invalid id: '${id}' is not a payment id.`, 'id'), rh, this.bugs);
    if (!visibleTo(key, p, this.bugs)) return respond(res, this.errors.make(rid, 'resource_missing', `No such payment: '${id}'.`, 'id'), rh, this.bugs);
    const body = this.presenter.paymentJson(p);
    rh['content-type'] = JSON_TYPE;
    rh['content-length'] = Buffer.byteLength(body);
    res.writeHead(200, rh);
    res.end(body);
  }

  list(key: ApiKey, qs: string, rid: string): ApiResult {
    const q = parseQuery(qs);
    const bad = (param: string, message: string) => this.errors.make(rid, 'parameter_invalid', message, param);
    const sizes = LIST_PARAMS.limit;
    let limit: number = sizes.default;
    if (q.has('limit')) {
      const s = q.get('limit')!;
      if (!/^-?\d+$/.test(s)) return bad('limit', `Invalid limit: expected an integer from ${sizes.min} to ${sizes.max}.`);
      limit = Number(s);
      if (limit < sizes.min || limit > sizes.max) {
        if (!this.bugs['list-limit-unchecked']) return bad('limit', `Invalid limit: expected an integer from ${sizes.min} to ${sizes.max}.`);
        limit = Math.min(sizes.max, Math.max(sizes.min, limit));
      }
    }
    let status: PaymentStatus | undefined;
    if (q.has('status')) {
      const s = q.get('status')!;
      const allowed = LIST_PARAMS.status.values;
      if (!(allowed as readonly string[]).includes(s)) {
        if (!this.bugs['list-unknown-status-ignored']) return bad('status', `Invalid status: expected one of ${allowed.join(', ')}.`);
      } else status = s as PaymentStatus;
    }
    const bounds: Record<Extract<keyof typeof LIST_PARAMS, `created[${string}]`>, number | undefined> = { 'created[gte]': undefined, 'created[lt]': undefined };
    for (const name of Object.keys(bounds) as (keyof typeof bounds)[]) {
      if (!q.has(name)) continue;
      const s = q.get(name)!;
      if (!/^-?\d+$/.test(s)) return bad(name, `Invalid ${name}: expected Unix seconds.`);
      bounds[name] = Number(s);
    }
    let cursor: PaymentRecord | undefined;
    if (q.has('starting_after')) {
      const id = q.get('starting_after')!;
      const p = this.store.get(id);
      const sameScope = p && (this.bugs['list-leaks-live'] ? p.merchant === key.merchant : p.partition === key.partition);
      if (sameScope) cursor = p;
      else if (!this.bugs['list-unknown-cursor-ok']) return bad('starting_after', `Invalid starting_after: no payment '${id}' exists for this API key.`);
    }
    // short-list-pages variant: a page holds at most half of limit (at least 1); has_more still says whether more match.
    const pageSize = this.options.shortListPages ? Math.max(1, Math.floor(limit / 2)) : limit;
    const page = this.store.list(key.merchant, key.mode, { limit: pageSize, cursor, status, createdGte: bounds['created[gte]'], createdLt: bounds['created[lt]'] });
    let body = '{"object":"list","data":[';
    for (let i = 0; i < page.data.length; i++) body += (i ? ',' : '') + this.presenter.paymentJson(page.data[i]);
    body += `],"has_more":${page.hasMore},"url":"${this.bugs['list-url-doubled-prefix'] ? `/v1${API_PATHS.payments}` : API_PATHS.payments}"}`;
    return { status: 200, body, contentType: JSON_TYPE };
  }
}
