// Email + password sign-in with Supabase Auth (GoTrue), for servers that verify Supabase access
// tokens. The page learns the project's URL and anon key from /app/config.json (both public by
// design). The session (access token, refresh token, expiry) is kept in sessionStorage: this
// tab only, gone when it closes. The access token is refreshed with the refresh token before it
// expires (half its lifetime before, at most a minute); a refused refresh ends the session.
// The Supabase origin is the one other origin the page talks to (the CSP's connect-src names it).

const STORE = "regintel.supabase";
const RETRY_MS = 5000;

export class AuthError extends Error {
  constructor(status, message) {
    super(message);
    this.name = "AuthError";
    this.status = status;
  }
}

export class SupabaseAuth {
  constructor({ url, anonKey }) {
    this.url = url.replace(/\/+$/, "");
    this.anonKey = anonKey;
    this.session = null;
    this.timer = null;
    this.refreshes = 0; // read by the browser tests
    this.onToken = () => {};
    this.onExpired = () => {};
  }

  /** A token grant (`password` or `refresh_token`): the session, or an AuthError. */
  async grant(type, body) {
    let response;
    try {
      response = await fetch(`${this.url}/auth/v1/token?grant_type=${type}`, {
        method: "POST",
        cache: "no-store",
        credentials: "omit",
        referrerPolicy: "no-referrer",
        headers: { apikey: this.anonKey, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch {
      throw new AuthError(0, "The sign-in service could not be reached.");
    }
    let data = {};
    try {
      data = await response.json();
    } catch {
      // not JSON: the status says enough
    }
    if (!response.ok) {
      // GoTrue says why as msg (newer), error_description (OAuth style) or message (gateway)
      const why = data.msg || data.error_description || data.message || data.error;
      throw new AuthError(response.status, why ? String(why) : `sign-in failed (HTTP ${response.status})`);
    }
    if (!data.access_token || !data.refresh_token) {
      throw new AuthError(response.status, "The sign-in service sent no session.");
    }
    // expires_in, not expires_at: the browser's clock may differ from the server's
    const lifetime = 1000 * Number(data.expires_in || 3600);
    return {
      accessToken: data.access_token,
      refreshToken: data.refresh_token,
      expiresAt: Date.now() + lifetime,
      lifetime,
      email: (data.user && data.user.email) || "",
    };
  }

  async signIn(email, password) {
    this.keep(await this.grant("password", { email, password }));
    return this.session;
  }

  /** The session this tab kept, if any (it may have expired: refresh it first). */
  restore() {
    try {
      const kept = JSON.parse(sessionStorage.getItem(STORE) || "null");
      if (kept && kept.accessToken && kept.refreshToken) this.session = kept;
    } catch {
      sessionStorage.removeItem(STORE);
    }
    return this.session;
  }

  keep(session) {
    this.session = session;
    sessionStorage.setItem(STORE, JSON.stringify(session));
  }

  margin() {
    return Math.min(60_000, (this.session ? this.session.lifetime : 0) / 2);
  }

  /** Refresh before the access token expires; call again after every new session. */
  schedule() {
    clearTimeout(this.timer);
    if (!this.session) return;
    const delay = Math.max(0, this.session.expiresAt - Date.now() - this.margin());
    this.timer = setTimeout(() => this.refresh(), delay);
  }

  async refresh() {
    clearTimeout(this.timer);
    const current = this.session;
    if (!current) return false;
    try {
      this.keep(await this.grant("refresh_token", { refresh_token: current.refreshToken }));
    } catch (error) {
      if (this.session !== current) return false; // signed out meanwhile
      if (error.status >= 400 && error.status < 500) {
        this.forget();
        this.onExpired();
        return false;
      }
      // unreachable or failing: try again while the access token still works
      if (Date.now() < current.expiresAt) this.timer = setTimeout(() => this.refresh(), RETRY_MS);
      else {
        this.forget();
        this.onExpired();
      }
      return false;
    }
    this.refreshes += 1;
    this.onToken(this.session.accessToken);
    this.schedule();
    return true;
  }

  forget() {
    clearTimeout(this.timer);
    this.session = null;
    sessionStorage.removeItem(STORE);
  }

  /** End the session here and, best effort, at Supabase (revokes the refresh token). */
  signOut() {
    const session = this.session;
    this.forget();
    if (!session) return;
    fetch(`${this.url}/auth/v1/logout?scope=local`, {
      method: "POST",
      credentials: "omit",
      referrerPolicy: "no-referrer",
      headers: { apikey: this.anonKey, Authorization: `Bearer ${session.accessToken}` },
    }).catch(() => {});
  }
}
