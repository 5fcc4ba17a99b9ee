/** Writing an API result to the socket: with the per-key rate headers, or with the given headers alone. */
import type { ServerResponse } from 'node:http';
import type { BugFlags } from './bugs.ts';
import type { ApiResult } from './errors.ts';
import { type HeaderList, send } from './http.ts';

/** Writes a result with exactly these headers (answers given before or instead of the rate limit's headers). */
export function writeResult(res: ServerResponse, r: ApiResult, headers: HeaderList): void {
  send(res, r.status, r.body, r.contentType, headers);
}

/** Writes an API result with the rate headers (which the RL-4 bug drops from 4xx). */
export function respond(res: ServerResponse, r: ApiResult, rh: HeaderList, bugs: BugFlags, extra?: HeaderList): void {
  let h = rh;
  if (bugs['rl-headers-missing-on-4xx'] && r.status >= 400 && r.status < 500) h = { 'request-id': rh['request-id'] };
  send(res, r.status, r.body, r.contentType, extra ? { ...h, ...extra } : h);
}
