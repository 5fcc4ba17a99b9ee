/** Error responses of the API: the full seven-field object with a request id (ERR-1..5). */
import { ERROR_CODES, AUTH_FAILURES } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import { JSON_TYPE } from './http.ts';

export interface ApiResult {
  status: number;
  body: string;
  contentType: string;
}

export class ErrorWriter {
  constructor(private readonly bugs: BugFlags) {}

  make(requestId: string, code: keyof typeof ERROR_CODES, message: string, param: string | null = null, declineCode: string | null = null): ApiResult {
    const info = ERROR_CODES[code];
    let status = info.http;
    let type: string = info.type;
    let wireCode: string = code;
    if (code === 'resource_missing' && this.bugs['err-wrong-type']) type = 'api_error';
    if (code === 'card_declined' && this.bugs['err-card-error-code'] && declineCode) wireCode = declineCode;
    if (code === 'service_unavailable' && this.bugs['err-500-as-502']) {
      status = 502;
      wireCode = 'bad_gateway';
    }
    const error: Record<string, unknown> = {
      type,
      code: wireCode,
      message,
      param,
      decline_code: info.type === 'card_error' ? declineCode : null,
      doc_url: `https://docs.paystorm.invalid/errors#${code}`,
      request_id: requestId,
    };
    if (this.bugs['err-missing-request-id']) delete error.request_id;
    return { status, body: JSON.stringify({ error }), contentType: this.bugs['err-text-plain'] ? 'text/plain; charset=utf-8' : JSON_TYPE };
  }

  unauthorized(requestId: string, reason: 'malformed' | 'badPrefix' | 'unknown', presented?: string): ApiResult {
    let message: string = AUTH_FAILURES[reason];
    if (reason === 'unknown' && presented && this.bugs['sec-key-in-error']) message = `API key ${presented} not recognised, revoked, or the validation backend is unreachable.`;
    return this.make(requestId, 'invalid_api_key', message);
  }
}
