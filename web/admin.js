// The admin view. A tenant's admin: the egress policies of its own tenant and its users
// (GET/PUT /api/admin/egress/...), and its users with their usage, counts only
// (GET /api/admin/users, /api/admin/usage). The platform operator also: concepts awaiting review
// (confirm, merge into another, reject; GET/POST /api/review/concepts...) and guard
// rejections by type (never by value; GET /api/admin/guard-rejections). Everything shown is
// built as text nodes.
import { ApiError } from "./api.js";

const MODES = ["enforce", "report-only", "off"];

function make(tag, text, className) {
  const el = document.createElement(tag);
  if (text !== undefined && text !== null) el.textContent = text;
  if (className) el.className = className;
  return el;
}

function button(text, label, onClick) {
  const el = make("button", text);
  el.type = "button";
  if (label) el.setAttribute("aria-label", label);
  el.addEventListener("click", onClick);
  return el;
}

function cell(...children) {
  const td = make("td");
  td.append(...children);
  return td;
}

function when(timestamp) {
  const moment = new Date(timestamp);
  return Number.isNaN(moment.getTime()) ? String(timestamp || "") : moment.toLocaleString();
}

/** A cost in millionths of the price table's currency, in that currency. */
function cost(micros) {
  return (Number(micros || 0) / 1e6).toFixed(4);
}

function listOf(text) {
  return text.split(",").map((item) => item.trim()).filter(Boolean);
}

/** The phrasings of a review item with their usage counts, whatever shape the API gives them
 * (a list of {text|label, count}, a {phrasing: count} object), else its labels uncounted. */
export function phrasingsOf(item) {
  const raw = item.phrasings ?? item.phrasingCounts ?? item.labelCounts;
  if (Array.isArray(raw)) {
    return raw.map((entry) => (typeof entry === "string"
      ? { text: entry, count: null }
      : {
        text: String(entry.text ?? entry.label ?? entry.phrasing ?? ""),
        count: entry.count ?? entry.uses ?? entry.conversations ?? null,
      }));
  }
  if (raw && typeof raw === "object") {
    return Object.entries(raw).map(([text, count]) => ({ text, count }));
  }
  return (item.labels || []).map((text) => ({ text, count: null }));
}

function modeOptions(select, { inherit } = {}) {
  const options = [];
  if (inherit) options.push(new Option(inherit, ""));
  for (const mode of MODES) options.push(new Option(mode, mode));
  select.replaceChildren(...options);
}

export class AdminView {
  constructor({ api, tenantId, root, onUnauthorized, operator = false }) {
    this.api = api;
    this.tenantId = tenantId;
    this.operator = operator;
    this.root = root;
    this.onUnauthorized = onUnauthorized;
    this.el = (id) => root.querySelector(`#${id}`);
    this.queue = [];
    for (const panel of root.querySelectorAll(".panel.review, .panel.guard")) {
      panel.hidden = !operator; // the shared graph's review: the platform operator's only
    }
    this.el("egress-tenant").textContent = tenantId;
    modeOptions(this.el("user-policy-mode"), { inherit: "(the tenant's)" });
    this.listening = new AbortController(); // the elements outlive this view: see close()
    const { signal } = this.listening;
    this.el("review-refresh").addEventListener("click", () => this.loadQueue(), { signal });
    this.el("guard-refresh").addEventListener("click", () => this.loadRejections(), { signal });
    this.el("users-refresh").addEventListener("click", () => this.loadUsers(), { signal });
    this.el("tenant-policy-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.saveTenantPolicy();
    }, { signal });
    this.el("user-policy-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const user = this.el("user-policy-id").value.trim();
      if (user) this.saveUserPolicy(user, this.el("user-policy-mode").value || null);
    }, { signal });
  }

  /** Let go of the page's elements and clear what they show (sign-out). */
  close() {
    this.listening.abort();
    for (const id of ["review-table", "guard-counts", "guard-recent", "user-policies", "tenant-users", "token-models", "token-users"]) {
      this.el(id).querySelector("tbody").replaceChildren();
    }
    for (const id of ["review-status", "guard-status", "egress-status", "users-status"]) this.say(id, "");
    this.el("token-totals").textContent = "";
  }

  refresh() {
    if (!this.operator) return Promise.all([this.loadPolicies(), this.loadUsers()]);
    return Promise.all([
      this.loadQueue(), this.loadConcepts(), this.loadRejections(), this.loadPolicies(),
      this.loadUsers(),
    ]);
  }

  /** Report a failure in `status` (a 401 signs out); returns false for the caller's flow. */
  failed(error, status) {
    if (error instanceof ApiError && error.status === 401) {
      this.onUnauthorized();
      return false;
    }
    this.say(status, error.message || String(error), true);
    return false;
  }

  say(id, text, isError = false) {
    const status = this.el(id);
    status.textContent = text;
    status.classList.toggle("error", isError);
  }

  // -- review ---------------------------------------------------------------------------------

  async loadQueue() {
    try {
      this.queue = await this.api.json("GET", "/api/review/concepts?limit=200");
    } catch (error) {
      return this.failed(error, "review-status");
    }
    const body = this.el("review-table").querySelector("tbody");
    body.replaceChildren(...this.queue.map((item) => this.reviewRow(item)));
    if (!this.queue.length) {
      const row = make("tr");
      const empty = make("td", "Nothing awaits review.", "hint");
      empty.colSpan = 6;
      row.append(empty);
      body.append(row);
    }
    return true;
  }

  /** Reviewed concepts, offered as merge targets. */
  async loadConcepts() {
    let snapshot;
    try {
      snapshot = await this.api.json("GET", "/api/graph/snapshot?labels=Concept&limit=2000");
    } catch {
      return; // merging still works with a typed id
    }
    const options = snapshot.nodes.map((node) => {
      const label = (node.properties || {}).pref_label;
      return new Option(label ? `${label}` : node.id, node.id);
    });
    this.el("concept-options").replaceChildren(...options);
  }

  reviewRow(item) {
    const row = make("tr");
    row.dataset.conceptId = item.id;
    const name = make("div", undefined, "concept-name");
    name.append(make("strong", item.prefLabel || item.id), make("code", item.id));
    if (typeof item.mentions === "number") {
      name.append(make("span", `${item.mentions} ${item.mentions === 1 ? "capture" : "captures"}`, "mentions"));
    }
    const phrasings = make("ul", undefined, "phrasings");
    for (const { text, count } of phrasingsOf(item)) {
      const li = make("li", text);
      if (count !== null && count !== undefined) {
        const shown = make("span", ` ×${count}`, "count");
        shown.setAttribute("aria-hidden", "true");
        const said = make("span", `, used ${count} ${Number(count) === 1 ? "time" : "times"}`, "visually-hidden-label");
        li.append(shown, said);
      }
      phrasings.append(li);
    }
    const aligned = make("ul", undefined, "aligned");
    for (const id of item.alignedWith || []) aligned.append(make("li", id));
    // Everything confirming makes shared, as text, with what needs a careful look (issue 30):
    // the definition and sources a model wrote reach every tenant once confirmed.
    const flagsOf = (field, text) => (item.flags || [])
      .filter((f) => f.field === field && (field === "definition" || f.text === text))
      .flatMap((f) => f.flags);
    const flagged = (el, flags) => {
      if (!flags.length) return el;
      el.classList.add("flagged");
      el.append(make("span", ` ⚑ ${flags.join(", ")}`, "flags"));
      return el;
    };
    for (const li of phrasings.children) {
      const text = li.firstChild ? li.firstChild.textContent : "";
      flagged(li, flagsOf("label", text));
    }
    const definition = make("div", undefined, "definition");
    if (item.definition) {
      definition.append(flagged(make("p", item.definition, "definition-text"), flagsOf("definition")));
    } else definition.append(make("p", "No definition.", "hint"));
    const sources = make("ul", undefined, "sources");
    for (const url of item.sourceUrls || []) sources.append(flagged(make("li", url), flagsOf("source_url", url)));
    definition.append(sources);
    const label = item.prefLabel || item.id;
    const target = make("input");
    target.type = "text";
    target.setAttribute("list", "concept-options");
    target.setAttribute("aria-label", `Merge ${label} into (concept id)`);
    target.placeholder = "Merge into…";
    target.className = "merge-target";
    // Concepts it may duplicate (ADR 0049): never merged by resolution, one click here. Another
    // capture still awaiting review is shown too; a concept merges only into a reviewed one.
    if ((item.candidates || []).length) {
      const duplicates = make("ul", undefined, "candidates");
      duplicates.setAttribute("aria-label", `Possible duplicates of ${label}`);
      for (const c of item.candidates) {
        const li = make("li", undefined, "candidate");
        li.dataset.candidateId = c.id;
        li.append(
          make("span", c.prefLabel || c.id), make("code", c.id),
          make("span", ` ${String(c.reason).replace(/_/g, " ")} ${Number(c.score).toFixed(2)}`, "reason"),
          c.status === "provisional"
            ? make("span", " awaiting review too: confirm one of the two first", "hint")
            : button("Merge into", `Merge ${label} into ${c.prefLabel || c.id}`, () => this.act(item, "merge", { into: c.id })),
        );
        duplicates.append(li);
      }
      name.append(make("span", "Possible duplicate of:", "hint"), duplicates);
    }
    const actions = make("div", undefined, "actions");
    actions.append(
      // the version listed: a concept changed since is not confirmed (409), list it again
      button("Confirm", `Confirm ${label}`, () => this.act(item, "confirm", { version: item.version })),
      target,
      button("Merge", `Merge ${label}`, () => {
        const into = target.value.trim();
        if (!into) {
          this.say("review-status", `Choose the concept to merge ${label} into.`, true);
          target.focus();
        } else this.act(item, "merge", { into });
      }),
      button("Reject", `Reject ${label}`, () => this.act(item, "reject")),
    );
    row.append(
      cell(name), cell(phrasings), cell(definition), cell(aligned),
      cell(make("span", when(item.createdAt))), cell(actions),
    );
    return row;
  }

  async act(item, action, body) {
    const path = `/api/review/concepts/${encodeURIComponent(item.id)}/${action}`;
    const label = item.prefLabel || item.id;
    this.say("review-status", `${action === "confirm" ? "Confirming" : action === "merge" ? "Merging" : "Rejecting"} ${label}…`);
    try {
      await this.api.json("POST", path, body === undefined ? {} : { body });
    } catch (error) {
      // 409 on confirm: the concept changed since it was listed; show what it holds now
      if (error instanceof ApiError && error.status === 409) await this.loadQueue();
      return this.failed(error, "review-status");
    }
    const done = {
      confirm: `Confirmed ${label}.`,
      merge: `Merged ${label} into ${body && body.into}.`,
      reject: `Rejected ${label}.`,
    }[action];
    await this.loadQueue();
    this.say("review-status", done);
    this.el("review-title").focus();
    if (action !== "reject") this.loadConcepts();
    return true;
  }

  // -- guard rejections -------------------------------------------------------------------------

  async loadRejections() {
    let report;
    try {
      report = await this.api.json("GET", "/api/admin/guard-rejections?limit=50");
    } catch (error) {
      return this.failed(error, "guard-status");
    }
    this.el("guard-counts-caption").textContent = `Rejections by code since ${when(report.since)} (${report.total} in all)`;
    const counts = Object.entries(report.counts).map(([code, count]) => {
      const row = make("tr");
      row.dataset.code = code;
      row.append(make("td", code), make("td", String(count), "number"));
      return row;
    });
    if (!counts.length) {
      const row = make("tr");
      const none = make("td", "None since the server started.", "hint");
      none.colSpan = 2;
      row.append(none);
      counts.push(row);
    }
    this.el("guard-counts").querySelector("tbody").replaceChildren(...counts);
    this.el("guard-recent").querySelector("tbody").replaceChildren(...report.recent.map((r) => {
      const row = make("tr");
      row.append(
        make("td", when(r.at)), make("td", r.code), make("td", r.property || "—"),
        make("td", (r.entityTypes || []).join(", ") || "—"),
      );
      return row;
    }));
    return true;
  }

  // -- users and usage ----------------------------------------------------------------------------

  async loadUsers() {
    let users;
    let usage;
    let tokens;
    try {
      [users, usage, tokens] = await Promise.all([
        this.api.json("GET", "/api/admin/users"),
        this.api.json("GET", "/api/admin/usage"),
        this.api.json("GET", "/api/admin/usage/tokens"),
      ]);
    } catch (error) {
      return this.failed(error, "users-status");
    }
    this.showTokens(tokens);
    const counts = new Map(usage.users.map((u) => [u.userId, u]));
    const body = this.el("tenant-users").querySelector("tbody");
    body.replaceChildren(...users.users.map((user) => {
      const used = counts.get(user.userId) || {};
      const row = make("tr");
      row.dataset.userId = user.userId;
      row.append(
        make("td", user.userId), make("td", String(user.conversations)),
        make("td", String(used.userMessages ?? 0)), make("td", String(used.answers ?? 0)),
        make("td", `${used.modelCalls ?? 0} (${used.blockedCalls ?? 0})`),
        make("td", when(user.lastActivity)),
        make("td", user.egressMode ? `${user.egressMode} → ${user.effectiveMode}` : `(the tenant's) ${user.effectiveMode}`),
      );
      return row;
    }));
    if (!users.users.length) {
      const row = make("tr");
      const none = make("td", "No user of this tenant has a conversation yet.", "hint");
      none.colSpan = 7;
      row.append(none);
      body.append(row);
    }
    this.say("users-status", "");
    return true;
  }

  /** The tenant's token usage this month (GET /api/admin/usage/tokens, ADR 0050). */
  showTokens(tokens) {
    const t = tokens.totals;
    this.el("token-totals").textContent =
      `Since ${tokens.since}: ${t.turns} ${t.turns === 1 ? "call" : "calls"}, ${t.inputTokens} input and ${t.outputTokens} ` +
      `output tokens, cost ${cost(t.costMicros)}.`;
    const row = (name, u) => {
      const tr = make("tr");
      tr.append(
        make("td", name), make("td", String(u.turns)), make("td", String(u.inputTokens)),
        make("td", String(u.outputTokens)), make("td", cost(u.costMicros)),
      );
      return tr;
    };
    this.el("token-models").querySelector("tbody").replaceChildren(
      ...tokens.byModel.map((m) => row(`${m.provider} / ${m.model}`, m)),
    );
    this.el("token-users").querySelector("tbody").replaceChildren(
      ...tokens.topUsers.map((u) => {
        const tr = row(u.userId, u);
        tr.dataset.userId = u.userId;
        return tr;
      }),
    );
  }

  // -- egress policies --------------------------------------------------------------------------

  async loadPolicies() {
    let tenant;
    let users;
    try {
      [tenant, users] = await Promise.all([
        this.api.json("GET", "/api/admin/egress/tenant"),
        this.api.json("GET", "/api/admin/egress/users"),
      ]);
    } catch (error) {
      return this.failed(error, "egress-status");
    }
    this.showTenantPolicy(tenant);
    this.showUserPolicies(users.users);
    return true;
  }

  showTenantPolicy(policy) {
    const select = this.el("tenant-mode");
    modeOptions(select, { inherit: `Server default (${policy.globalDefault})` });
    select.value = policy.defaultMode || "";
    this.el("tenant-allow-off").checked = policy.allowOffMode;
    this.el("tenant-providers").value = policy.allowedProviders.join(", ");
    this.el("tenant-models").value = policy.allowedModels.join(", ");
  }

  showUserPolicies(users) {
    const body = this.el("user-policies").querySelector("tbody");
    body.replaceChildren(...users.map((user) => {
      const row = make("tr");
      row.dataset.userId = user.userId;
      const select = make("select");
      select.setAttribute("aria-label", `Mode of ${user.userId}`);
      modeOptions(select, { inherit: "(the tenant's)" });
      select.value = user.mode || "";
      const effective = make("td", user.effectiveMode, user.effectiveMode === "refused" ? "error" : "");
      if (user.effectiveMode === "refused") {
        effective.title = "The tenant does not allow off: this user's calls are refused";
      }
      row.append(
        make("td", user.userId), cell(select), effective,
        cell(button("Save", `Save the mode of ${user.userId}`, () => this.saveUserPolicy(user.userId, select.value || null))),
      );
      return row;
    }));
    if (!users.length) {
      const row = make("tr");
      const none = make("td", "Every user follows the tenant's policy.", "hint");
      none.colSpan = 4;
      row.append(none);
      body.append(row);
    }
  }

  async saveTenantPolicy() {
    const body = {
      defaultMode: this.el("tenant-mode").value || null,
      allowOffMode: this.el("tenant-allow-off").checked,
      allowedProviders: listOf(this.el("tenant-providers").value),
      allowedModels: listOf(this.el("tenant-models").value),
    };
    let saved;
    try {
      saved = await this.api.json("PUT", "/api/admin/egress/tenant", { body });
    } catch (error) {
      return this.failed(error, "egress-status");
    }
    this.showTenantPolicy(saved);
    this.say("egress-status", `Saved the policy of ${saved.tenantId}.`);
    await this.loadPolicies(); // users' effective modes follow the tenant's
    return true;
  }

  async saveUserPolicy(userId, mode) {
    try {
      await this.api.json("PUT", `/api/admin/egress/users/${encodeURIComponent(userId)}`, { body: { mode } });
    } catch (error) {
      return this.failed(error, "egress-status");
    }
    this.el("user-policy-id").value = "";
    await this.loadPolicies();
    this.say("egress-status", `Saved the mode of ${userId}: ${mode || "the tenant's"}.`);
    return true;
  }
}
