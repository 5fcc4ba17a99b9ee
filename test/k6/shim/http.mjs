/**
 * Shim of `k6/http`: synchronous requests through the fetch worker. Response headers
 * get Go's canonical names (X-Ratelimit-Limit), as k6 reports them, so scripts must
 * read headers case-insensitively here as they must under k6.
 */
import { state, syncFetch, emitSample } from './state.mjs';

function canonical(name) {
  return name
    .split('-')
    .map((p) => (p ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p))
    .join('-');
}

function durationMs(t) {
  if (t === undefined || t === null) return 60_000;
  if (typeof t === 'number') return t;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(t));
  if (!m) throw new Error(`k6 shim: bad timeout ${t}`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
}

function encodeBody(body) {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString();
  // k6 form-encodes objects.
  return new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString();
}

function redactAuth(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k.toLowerCase() === 'authorization' ? String(v).replace(/(\S+)$/, (s) => `…${s.slice(-4)}`) : v;
  return out;
}

function toResponse(req, res) {
  const headers = {};
  for (const [k, v] of res.headers) headers[canonical(k)] = headers[canonical(k)] ? `${headers[canonical(k)]}, ${v}` : v;
  const r = {
    status: res.status,
    headers,
    body: res.body,
    error: res.error,
    error_code: res.status === 0 ? 1000 : res.status >= 400 ? 1000 + res.status : 0,
    url: req.url,
    proto: 'HTTP/1.1',
    timings: { duration: res.durationMs, waiting: res.durationMs, blocked: 0, connecting: 0, tls_handshaking: 0, sending: 0, receiving: 0 },
    request: { method: req.method, url: req.url, headers: req.headers, body: req.body ?? '' },
    json(selector) {
      const v = JSON.parse(this.body);
      if (selector) throw new Error('k6 shim: json(selector) is not supported');
      return v;
    },
  };
  const ranges = state.responseCallback && state.responseCallback.expectedStatuses;
  const expected = ranges ? ranges.some((r) => (typeof r === 'number' ? r === res.status : res.status >= r.min && res.status <= r.max)) : res.status >= 200 && res.status < 400;
  const tags = { expected_response: String(expected), method: req.method, name: req.tags.name ?? req.url, proto: 'HTTP/1.1', status: String(res.status), url: req.tags.name ?? req.url, ...req.tags };
  emitSample('http_reqs', 'counter', 'default', 1, tags);
  emitSample('http_req_duration', 'trend', 'time', res.durationMs, tags);
  emitSample('http_req_failed', 'rate', 'default', expected ? 0 : 1, tags);
  state.requests.push({
    method: req.method,
    url: req.url,
    headers: redactAuth(req.headers),
    body: req.body,
    tags: req.tags,
    status: res.status,
    responseHeaders: headers,
    responseBody: res.body,
    error: res.error,
  });
  return r;
}

function prepare(method, url, body, params) {
  const p = params || {};
  return { method: String(method).toUpperCase(), url: String(url), headers: { ...(p.headers || {}) }, body: encodeBody(body), timeoutMs: durationMs(p.timeout), tags: { ...(p.tags || {}) } };
}

export function request(method, url, body, params) {
  const req = prepare(method, url, body, params);
  return toResponse(req, syncFetch([req])[0]);
}
export const get = (url, params) => request('GET', url, null, params);
export const head = (url, params) => request('HEAD', url, null, params);
export const del = (url, body, params) => request('DELETE', url, body, params);
export const post = (url, body, params) => request('POST', url, body, params);
export const put = (url, body, params) => request('PUT', url, body, params);
export const patch = (url, body, params) => request('PATCH', url, body, params);

export function batch(requests) {
  const entries = Array.isArray(requests) ? requests.map((r, i) => [i, r]) : Object.entries(requests);
  const prepared = entries.map(([, r]) => {
    if (typeof r === 'string') return prepare('GET', r, null, null);
    if (Array.isArray(r)) return prepare(r[0], r[1], r[2], r[3]);
    return prepare(r.method, r.url, r.body, r.params);
  });
  const results = syncFetch(prepared);
  const out = Array.isArray(requests) ? [] : {};
  entries.forEach(([k], i) => {
    out[k] = toResponse(prepared[i], results[i]);
  });
  return out;
}

export function setResponseCallback(cb) {
  state.responseCallback = cb;
}
export function expectedStatuses(...ranges) {
  return { expectedStatuses: ranges };
}

export default { request, get, head, del, post, put, patch, batch, setResponseCallback, expectedStatuses };
