// The HTTP API as the page uses it: every call carries the signed-in key or token.
import { readEvents } from "./sse.js";

/** How often, and after how long a `Retry-After` at most, a rate-limited call is tried again. */
export const RATE_LIMIT_RETRIES = 3;
export const RATE_LIMIT_MAX_WAIT_S = 10;

/** Wait `ms`, or reject at once with the signal's reason when it is aborted meanwhile. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); reject(signal.reason); },
      { once: true });
  });
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }

  static async from(response) {
    let code = "http_" + response.status;
    let message = response.statusText || "request failed";
    try {
      const body = await response.json();
      if (body && body.error) ({ code, message } = body.error);
    } catch {
      // not JSON: keep the status line
    }
    return new ApiError(response.status, code, message);
  }
}

export class Api {
  constructor(token) {
    this.token = token;
  }

  /** One call. A 429 `rate_limited` (the caller's request budget, nothing done) is tried
   * again after its `Retry-After`, up to RATE_LIMIT_RETRIES times when the wait is short: a
   * person working quickly spends the budget with the page's own reads (a turn, its sync, the
   * pins, the list). Any other error, or a long wait, is the caller's to show. */
  async request(method, path, { body, signal, headers } = {}) {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(path, {
        method,
        signal,
        cache: "no-store",
        headers: {
          Authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (response.ok) return response;
      const error = await ApiError.from(response);
      const wait = Number(response.headers.get("Retry-After"));
      const again = error.code === "rate_limited" && attempt < RATE_LIMIT_RETRIES
        && Number.isFinite(wait) && wait >= 0 && wait <= RATE_LIMIT_MAX_WAIT_S;
      if (!again) throw error;
      await sleep(Math.max(wait, 0.25) * 1000, signal);
    }
  }

  async json(method, path, options) {
    return (await this.request(method, path, options)).json();
  }

  /** Server-Sent Events of one request ({event, data, id}, data still a string). */
  async *events(method, path, options) {
    const response = await this.request(method, path, options);
    yield* readEvents(response);
  }
}
