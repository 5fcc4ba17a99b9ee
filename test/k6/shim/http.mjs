/**
 * Shim of `k6/http`: synchronous requests through the fetch worker. Response headers
 * get Go's canonical names (X-Ratelimit-Limit), as k6 reports them, so scripts must
 * read headers case-insensitively here as they must under k6.
 *
 * Timings as k6 reports them: `duration` is sending + waiting + receiving only; a request that
 * needs a new connection (the VU has none free to its origin: the first request, or more
 * parallel batch requests than open connections) first spends K6SHIM_CONNECT_MS (default 30)
 * connecting, reported in `timings.connecting` and left out of `duration`, as k6 leaves out
 * blocked, connecting and tls_handshaking. `blocked` is the time before the fetch worker took
 * the request (its start-up, the hand-over). K6SHIM_NO_REUSE=1: every request connects (k6's
 * noConnectionReuse).
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
    timings: { duration: res.durationMs, waiting: res.durationMs, blocked: res.blockedMs ?? 0, connecting: req.connectMs, tls_handshaking: 0, sending: 0, receiving: 0 },
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
    connectMs: req.connectMs,
    /** Epoch ms when the answer was in hand (this thread). */
    receivedAt: res.receivedAt,
  });
  return r;
}

const CONNECT_MS = Number(process.env.K6SHIM_CONNECT_MS ?? '30');
const NO_REUSE = process.env.K6SHIM_NO_REUSE === '1';

/** Which of these parallel requests need a new connection (they get `connectMs`). */
function connect(prepared) {
  const byOrigin = new Map();
  for (const req of prepared) {
    let origin;
    try {
      origin = new URL(req.url).origin;
    } catch {
      origin = req.url;
    }
    const used = byOrigin.get(origin) ?? 0;
    byOrigin.set(origin, used + 1);
    const open = NO_REUSE ? 0 : (state.connected.get(origin) ?? 0);
    req.connectMs = used >= open ? CONNECT_MS : 0;
  }
  for (const [origin, n] of byOrigin) state.connected.set(origin, Math.max(state.connected.get(origin) ?? 0, n));
}

function fetchAll(prepared) {
  connect(prepared);
  const postedAt = performance.timeOrigin + performance.now();
  for (const req of prepared) req.postedAt = postedAt;
  const results = syncFetch(prepared);
  const receivedAt = Date.now();
  for (const r of results) r.receivedAt = receivedAt;
  return results;
}

function prepare(method, url, body, params) {
  const p = params || {};
  return { method: String(method).toUpperCase(), url: String(url), headers: { ...(p.headers || {}) }, body: encodeBody(body), timeoutMs: durationMs(p.timeout), tags: { ...(p.tags || {}) } };
}

export function request(method, url, body, params) {
  const req = prepare(method, url, body, params);
  return toResponse(req, fetchAll([req])[0]);
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
  const results = fetchAll(prepared);
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
