// A conversation's stored scenario (issue 28, ADR 0063 second addendum and its session 7
// addendum): a select above the question box lists the caller's scenarios; picking one links
// the shown conversation to it (PUT /api/conversations/{id}/scenario), "No scenario" removes
// the link (DELETE), and opening a conversation reads its link (GET). In a new conversation,
// which has no id until its first turn, the pick is sent with that turn as `scenarioId`. A
// what-if asked in a linked conversation ("what if I earned €60,000 instead?") starts from the
// scenario's latest snapshot. Labels are written with textContent / Option text, never HTML.
import { ApiError } from "./api.js";

export class ScenarioLink {
  constructor({ api, select, status, onUnauthorized }) {
    this.api = api;
    this.select = select;
    this.statusLine = status;
    this.onUnauthorized = onUnauthorized;
    this.conversationId = null;
    this.pending = ""; // a new conversation's pick, sent with its first turn
    this.scenarios = [];
    this.listening = new AbortController();
    select.addEventListener("change", () => this.pick(select.value), { signal: this.listening.signal });
  }

  close() {
    this.listening.abort();
  }

  status(text, error = false) {
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle("error", error);
  }

  async call(method, path, body) {
    try {
      if (method === "DELETE") return await this.api.request(method, path); // 204: no body
      return await this.api.json(method, path, body === undefined ? undefined : { body });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.onUnauthorized();
      throw error;
    }
  }

  label(id) {
    const found = this.scenarios.find((s) => s.id === id);
    return found ? found.label : id;
  }

  /** The caller's scenarios as the select's options, keeping the current choice. */
  async refresh() {
    const chosen = this.select.value;
    try {
      this.scenarios = await this.call("GET", "/api/scenarios?limit=100");
    } catch (error) {
      this.status(`Scenarios could not be loaded: ${error.message}`, true);
      return;
    }
    this.options(chosen);
  }

  options(chosen) {
    const none = new Option("No scenario", "");
    const known = this.scenarios.map((s) => new Option(s.label, s.id));
    // a linked scenario not in the list (over the list's limit) still shows as chosen
    if (chosen && !this.scenarios.some((s) => s.id === chosen)) known.push(new Option(chosen, chosen));
    this.select.replaceChildren(none, ...known);
    this.select.value = chosen || "";
  }

  /** The chat shows another conversation (``null``: a new one; ``started``: a turn just made
   * it): show its link. */
  async setConversation(id, started = false) {
    if (id === this.conversationId) return;
    const first = started && this.conversationId === null && id !== null && this.pending;
    this.conversationId = id;
    if (id === null) {
      this.pending = "";
      this.options("");
      this.status("");
      return;
    }
    if (first) {
      // the first turn carried the pick as `scenarioId`: the server linked it with the turn (a
      // scenario not the caller's fails the turn itself with a 404), so nothing to read back
      const picked = this.pending;
      this.pending = "";
      this.options(picked);
      this.status(`What-if questions here start from “${this.label(picked)}”.`);
      return;
    }
    this.pending = "";
    let linked;
    try {
      const path = `/api/conversations/${encodeURIComponent(id)}/scenario`;
      linked = (await this.call("GET", path)).scenario;
    } catch (error) {
      if (id === this.conversationId) this.status(`The scenario link could not be read: ${error.message}`, true);
      return;
    }
    if (id !== this.conversationId) return; // the page moved on meanwhile
    if (linked && !this.scenarios.some((s) => s.id === linked.id)) this.scenarios.push(linked);
    this.options(linked ? linked.id : "");
    if (linked) this.status(`What-if questions here start from “${linked.label}”.`);
    else this.status("");
  }

  /** What the next chat request adds: a new conversation's pick. */
  turnExtras() {
    return this.conversationId === null && this.pending ? { scenarioId: this.pending } : {};
  }

  async pick(id) {
    if (this.conversationId === null) {
      this.pending = id;
      this.status(id ? `Your first question will use “${this.label(id)}”.` : "");
      return;
    }
    const conversation = this.conversationId;
    const path = `/api/conversations/${encodeURIComponent(conversation)}/scenario`;
    try {
      if (id) await this.call("PUT", path, { scenarioId: id });
      else await this.call("DELETE", path);
    } catch (error) {
      this.status(`The scenario could not be ${id ? "linked" : "unlinked"}: ${error.message}`, true);
      return;
    }
    if (conversation !== this.conversationId) return;
    this.status(id ? `What-if questions here start from “${this.label(id)}”.` : "No scenario linked.");
  }
}
