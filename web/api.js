// The HTTP API as the page uses it: every call carries the signed-in key or token.
import { readEvents } from "./sse.js";

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

  async request(method, path, { body, signal, headers } = {}) {
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
    if (!response.ok) throw await ApiError.from(response);
    return response;
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
