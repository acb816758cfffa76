// The chat: the user's conversations, one streamed turn at a time (POST /api/chat read as SSE),
// citations as chips, the refusal shown as one, warnings kept quiet, a stop button that aborts
// the request (the server keeps the partial answer). A question can be edited and an answer
// regenerated: each starts a branch (ADR 0062), streamed the same way; a switcher (‹ 1/2 ›) at
// each branch point shows another version of the conversation from there.
import { ApiError } from "./api.js";
import { renderMarkdown } from "./markdown.js";

// The `progress` stages of a turn (issue 26), as the answer's status line says them.
const PROGRESS = {
  retrieval: (p) => `Searching the rules graph: ${p.hits} ${p.hits === 1 ? "source" : "sources"} found…`,
  prompt_sent: () => "Question sent to the model…",
  waiting_for_model: () => "Waiting for the model…",
  capture: () => "Resolving the concepts…",
};

const REFUSALS = {
  no_evidence: "the rules graph holds no evidence for this question",
  out_of_coverage_jurisdiction: "this jurisdiction is outside the graph's coverage",
  unknown_instrument: "the graph does not hold this act",
};

function make(tag, text, className) {
  const el = document.createElement(tag);
  if (text !== undefined) el.textContent = text;
  if (className) el.className = className;
  return el;
}

export class ChatView {
  constructor({ api, elements, graph, onUnauthorized, onConversation, turnExtras }) {
    this.api = api;
    // the scenario link (issue 28): told which conversation is shown; adds to a new chat turn
    this.onConversation = onConversation || (() => {});
    this.turnExtras = turnExtras || (() => ({}));
    this.el = elements;
    this.graph = graph;
    this.onUnauthorized = onUnauthorized;
    this.conversationId = null;
    this.controller = null;
    this.views = []; // the shown branch's messages, in order (each with its `message` once known)
    this.captured = []; // concepts this page's turns resolved, newest last
    // the elements outlive this view (sign out, sign in again): its listeners end with close()
    this.listening = new AbortController();
    const { signal } = this.listening;
    elements.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const question = elements.question.value.trim();
      if (question && !this.controller) this.ask(question);
    }, { signal });
    elements.question.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        elements.form.requestSubmit();
      }
    }, { signal });
    elements.stop.addEventListener("click", () => this.stop(), { signal });
    elements.newConversation.addEventListener("click", () => this.newConversation(), { signal });
  }

  /** Stop any turn and let go of the page's elements (sign-out). */
  close() {
    this.stop();
    this.listening.abort();
    this.el.messages.replaceChildren();
    this.el.conversations.replaceChildren();
    this.views = [];
  }

  failed(error, where) {
    if (error instanceof ApiError && error.status === 401) {
      this.onUnauthorized();
      return;
    }
    where.append(make("p", `${error.message || error}`, "error"));
  }

  // -- conversations ------------------------------------------------------------------------

  async refreshConversations() {
    let conversations;
    try {
      conversations = await this.api.json("GET", "/api/conversations?limit=50");
    } catch (error) {
      return this.failed(error, this.el.conversations);
    }
    this.el.conversations.replaceChildren(...conversations.map((c) => {
      const button = make("button", c.title || "(no question yet)", "conversation");
      button.type = "button";
      button.dataset.conversationId = c.id;
      button.title = `Updated ${new Date(c.updatedAt).toLocaleString()}`;
      if (c.id === this.conversationId) button.setAttribute("aria-current", "true");
      button.addEventListener("click", () => this.openConversation(c.id));
      const li = make("li");
      li.append(button);
      return li;
    }));
  }

  newConversation() {
    this.stop();
    this.conversationId = null;
    this.onConversation(null);
    this.el.messages.replaceChildren();
    this.views = [];
    this.graph.clearFocus();
    this.refreshConversations();
    this.el.question.focus();
  }

  async openConversation(id) {
    this.stop();
    let conversation;
    try {
      conversation = await this.api.json("GET", `/api/conversations/${encodeURIComponent(id)}`);
    } catch (error) {
      return this.failed(error, this.el.messages);
    }
    this.show(conversation);
    this.refreshConversations();
  }

  /** Render a conversation as the server returns it: its active branch, with its controls. */
  show(conversation) {
    this.conversationId = conversation.id;
    this.onConversation(conversation.id);
    this.el.messages.replaceChildren();
    this.views = [];
    let referenced = [];
    for (const message of conversation.messages) {
      const view = this.addMessage(message.role, message.content);
      if (message.role === "assistant") {
        this.showReferenced(view, message.referencedNodes);
        if (message.status !== "complete") view.status.textContent = `(${message.status})`;
        referenced = message.referencedNodes;
      }
    }
    this.decorate(conversation);
    if (referenced.length) this.graph.focus(referenced);
  }

  // -- branches (ADR 0062) ------------------------------------------------------------------

  /** After a turn: the server's ids and versions for the messages on screen (the streamed
   * ones have none yet); the whole conversation again if the two disagree. */
  async sync() {
    const id = this.conversationId;
    if (!id) return;
    let conversation;
    try {
      conversation = await this.api.json("GET", `/api/conversations/${encodeURIComponent(id)}`);
    } catch (error) {
      return this.failed(error, this.el.messages);
    }
    if (this.controller || id !== this.conversationId) return; // the page moved on meanwhile
    if (conversation.messages.length === this.views.length) this.decorate(conversation);
    else this.show(conversation);
  }

  decorate(conversation) {
    conversation.messages.forEach((message, n) => {
      const view = this.views[n];
      view.message = message;
      view.item.dataset.messageId = message.id;
      view.item.querySelector(".message-actions")?.remove();
      view.item.insertBefore(this.actions(view, conversation.owned), view.body.nextSibling);
    });
    if (conversation.owned) {
      this.showSummary(conversation.id);
      this.showPins(conversation.id);
    }
  }

  // -- pinned messages (ADR 0065 session 8): kept word for word when the prompt is compacted --

  async showPins(id) {
    let pins;
    try {
      pins = await this.api.json("GET", `/api/conversations/${encodeURIComponent(id)}/pins`);
    } catch (error) {
      return this.failed(error, this.el.messages);
    }
    if (id !== this.conversationId) return; // the page moved on meanwhile
    this.markPins(pins.pinnedMessageIds);
  }

  markPins(ids) {
    const pinned = new Set(ids);
    for (const view of this.views) {
      const b = view.item.querySelector(".pin-action");
      if (!b || !view.message) continue;
      const on = pinned.has(view.message.id);
      b.textContent = on ? "Unpin" : "Pin";
      b.setAttribute("aria-label", on ? "Unpin this message" : "Pin this message");
      b.setAttribute("aria-pressed", String(on));
    }
  }

  async togglePin(view, button) {
    const on = button.getAttribute("aria-pressed") === "true";
    const path = `/api/conversations/${encodeURIComponent(this.conversationId)}/messages/`
      + `${encodeURIComponent(view.message.id)}/pin`;
    button.disabled = true;
    try {
      const pins = await this.api.json(on ? "DELETE" : "PUT", path);
      this.markPins(pins.pinnedMessageIds);
    } catch (error) {
      this.failed(error, this.el.messages);
    } finally {
      button.disabled = Boolean(this.controller);
    }
  }

  // -- compaction (ADR 0065): which earlier turns the model gets as a summary, and rollback --

  /** A note after the last message the newest summary on the shown branch replaced (the model
   * gets those as a summary, not word for word), with Roll back; nothing when none applies. */
  async showSummary(id) {
    let summaries;
    try {
      summaries = await this.api.json(
        "GET", `/api/conversations/${encodeURIComponent(id)}/summaries`);
    } catch (error) {
      return this.failed(error, this.el.messages);
    }
    if (id !== this.conversationId) return; // the page moved on meanwhile
    this.el.messages.querySelectorAll(".summary-note").forEach((note) => note.remove());
    const at = (s) => this.views.findIndex((v) => v.message && v.message.id === s.lastMessageId);
    const shown = summaries.filter((s) => at(s) >= 0);
    const live = shown.filter((s) => !s.rolledBackAt);
    const newest = live.sort((a, b) => at(b) - at(a))[0];
    const rolled = shown.filter((s) => s.rolledBackAt).sort((a, b) => at(b) - at(a))[0];
    const note = make("li", undefined, "summary-note");
    note.setAttribute("role", "note");
    if (newest && (!rolled || at(newest) > at(rolled))) {
      // a configured model's summary (ADR 0065, third addendum) says which model wrote it
      const by = newest.modelSummaryBy ? ` by ${newest.modelSummaryBy}` : "";
      note.append(make("span", `Earlier turns summarised${by}: ${newest.messageCount} messages`
        + " up to here go to the model as a summary, not word for word."));
      const undo = make("button", "Roll back", "message-action");
      undo.type = "button";
      undo.setAttribute("aria-label", "Roll back this summary");
      undo.addEventListener("click", () => this.rollBack(id, newest.id, undo));
      note.append(undo);
      this.views[at(newest)].item.after(note);
    } else if (rolled) {
      note.append(make("span", "Summary rolled back: these turns go to the model word for word,"
        + " as far as the budget allows."));
      this.views[at(rolled)].item.after(note);
    }
  }

  async rollBack(id, summaryId, button) {
    button.disabled = true;
    const path = `/api/conversations/${encodeURIComponent(id)}/summaries/`
      + `${encodeURIComponent(summaryId)}/rollback`;
    try {
      await this.api.json("POST", path);
    } catch (error) {
      button.disabled = false;
      return this.failed(error, this.el.messages);
    }
    await this.showSummary(id);
  }

  /** A message's controls: the branch switcher where it has versions, and Edit (a question)
   * or Regenerate (an answer) for the conversation's owner. */
  actions(view, owned) {
    const { message } = view;
    const actions = make("div", undefined, "message-actions");
    const button = (text, label, onClick, off = false) => {
      const b = make("button", text, "message-action");
      b.type = "button";
      if (label) b.setAttribute("aria-label", label);
      if (off) b.dataset.off = "1";
      b.disabled = off || Boolean(this.controller);
      b.addEventListener("click", onClick);
      return b;
    };
    const versions = message.siblingIds || [message.id];
    if (versions.length > 1) {
      const at = versions.indexOf(message.id);
      const nav = make("nav", undefined, "branch-switcher");
      nav.setAttribute("aria-label", "Versions");
      nav.append(
        button("‹", "Previous version", () => this.switchTo(versions[at - 1]), !owned || at <= 0),
        make("span", `${at + 1}/${versions.length}`, "branch-position"),
        button("›", "Next version", () => this.switchTo(versions[at + 1]),
          !owned || at >= versions.length - 1),
      );
      // merge preview (ADR 0062): the neighbouring version beside the shown one, read-only
      const other = at + 1 < versions.length ? at + 1 : at - 1;
      nav.append(button("Compare", `Compare with version ${other + 1}`,
        () => this.preview(view, versions[other], other + 1, versions.length, owned)));
      actions.append(nav);
    }
    if (owned && message.role === "user") {
      actions.append(button("Edit", "Edit this question", () => this.startEdit(view)));
    } else if (owned && message.role === "assistant") {
      actions.append(button("Regenerate", "Regenerate this answer", () => this.regenerate(view)));
    }
    if (owned) { // kept word for word when the prompt is compacted (ADR 0065 session 8)
      const pin = button("Pin", "Pin this message", () => this.togglePin(view, pin));
      pin.classList.add("pin-action");
      pin.setAttribute("aria-pressed", "false");
      actions.append(pin);
    }
    return actions;
  }

  /** The branch through `messageId` (version `number` of `count`) beside the shown one, from
   * where they fork: each side's messages, the concepts one has and the other lacks, and (for
   * the owner) a switch to it. Nothing changes until the switch. */
  async preview(view, messageId, number, count, owned) {
    if (this.controller) return;
    for (const open of this.el.messages.querySelectorAll(".branch-preview")) open.remove();
    const path = `/api/conversations/${encodeURIComponent(this.conversationId)}`
      + `/branch/preview?messageId=${encodeURIComponent(messageId)}`;
    let found;
    try {
      found = await this.api.json("GET", path);
    } catch (error) {
      this.failed(error, this.el.messages);
      return;
    }
    const panel = make("section", undefined, "branch-preview");
    panel.setAttribute("aria-label", `Version ${number} compared`);
    panel.append(make("h4", `Version ${number}/${count} beside the shown one, from here on`));
    const side = (title, messages, className) => {
      const box = make("div", undefined, className);
      box.append(make("h5", title));
      const list = make("ol");
      for (const m of messages) {
        const text = (m.content || "").replace(/\s+/g, " ").trim();
        const cut = text.length > 160 ? `${text.slice(0, 159)}…` : text;
        list.append(make("li", `${m.role === "user" ? "Q" : "A"}: ${cut || "(no text)"}`));
      }
      if (!messages.length) list.append(make("li", "(nothing after the fork)"));
      box.append(list);
      return box;
    };
    const sides = make("div", undefined, "preview-sides");
    sides.append(side(`Version ${number}`, found.messages, "preview-theirs"),
      side("Shown", found.activeMessages, "preview-ours"));
    panel.append(sides);
    const names = (ids) => (ids.length ? ids.join(", ") : "none");
    panel.append(make("p", `Context concepts it adds: ${names(found.conceptsAdded)}; `
      + `it drops: ${names(found.conceptsDropped)}`, "preview-concepts"));
    const controls = make("div", undefined, "preview-actions");
    if (owned) {
      const go = make("button", `Switch to version ${number}`);
      go.type = "button";
      go.addEventListener("click", () => { panel.remove(); this.switchTo(messageId); });
      controls.append(go);
    }
    const close = make("button", "Close");
    close.type = "button";
    close.addEventListener("click", () => panel.remove());
    controls.append(close);
    panel.append(controls);
    view.item.append(panel);
  }

  async switchTo(messageId) {
    if (this.controller || !messageId) return;
    const path = `/api/conversations/${encodeURIComponent(this.conversationId)}/branch`;
    try {
      this.show(await this.api.json("PUT", path, { body: { messageId } }));
    } catch (error) {
      this.failed(error, this.el.messages);
    }
  }

  startEdit(view) {
    if (this.controller || view.item.querySelector(".edit-form")) return;
    const form = make("form", undefined, "edit-form");
    const box = make("textarea");
    box.value = view.message.content;
    box.rows = 2;
    box.setAttribute("aria-label", "Edited question");
    const save = make("button", "Save and ask");
    save.type = "submit";
    const cancel = make("button", "Cancel");
    cancel.type = "button";
    form.append(box, save, cancel);
    view.body.hidden = true;
    view.item.insertBefore(form, view.body);
    const close = () => { form.remove(); view.body.hidden = false; };
    cancel.addEventListener("click", close);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = box.value.trim();
      if (!text || this.controller) return;
      close();
      this.branchTurn(view, "edit", { message: text }, text);
    });
    box.focus();
  }

  regenerate(view) {
    if (!this.controller) this.branchTurn(view, "regenerate", {}, null);
  }

  /** An edit or a regeneration: the messages from `view` on give way to the new branch's. */
  branchTurn(view, kind, body, question) {
    const at = this.views.indexOf(view);
    if (at < 0) return;
    for (const gone of this.views.splice(at)) gone.item.remove();
    const path = `/api/conversations/${encodeURIComponent(this.conversationId)}`
      + `/messages/${encodeURIComponent(view.message.id)}/${kind}`;
    return this.turn(path, body, question);
  }

  // -- one turn -----------------------------------------------------------------------------

  addMessage(role, text) {
    const item = make("li", undefined, `message ${role}`);
    item.append(make("span", role === "user" ? "You" : "Regintel", "who visually-hidden-label"));
    const body = make("div", undefined, "body");
    const status = make("span", "", "status");
    const notes = make("details", undefined, "notes");
    notes.hidden = true;
    const citations = make("ul", undefined, "citations");
    citations.setAttribute("aria-label", "Citations");
    citations.hidden = true;
    item.append(body, citations, status, notes);
    this.el.messages.append(item);
    const view = { item, body, status, notes, citations, text, message: null };
    this.views.push(view);
    this.render(view);
    return view;
  }

  render(view) {
    if (view.item.classList.contains("user")) view.body.textContent = view.text;
    else {
      const urls = view.citationUrls || [];
      renderMarkdown(view.text, view.body, (id) => this.graph.focus([id]), urls);
    }
    view.item.scrollIntoView({ block: "end" });
  }

  note(view, warning) {
    if (view.notes.hidden) {
      view.notes.hidden = false;
      view.notes.append(make("summary", "Notes"));
    }
    view.notes.append(make("p", warning.message || warning.code, "note"));
  }

  showReferenced(view, nodeIds) {
    if (!nodeIds || !nodeIds.length) return;
    view.citations.hidden = false;
    for (const id of nodeIds) {
      const chip = make("li", undefined, "chip");
      const button = make("button", id, "chip-focus");
      button.type = "button";
      button.addEventListener("click", () => this.graph.focus([id]));
      chip.append(button);
      view.citations.append(chip);
    }
  }

  showCitations(view, citations) {
    // links in the answer to a cited node's URL become clickable (web/markdown.js)
    view.citationUrls = citations.map((c) => c.url).filter((url) => typeof url === "string");
    if (view.citationUrls.length) this.render(view);
    view.citations.replaceChildren();
    view.citations.hidden = !citations.length;
    for (const citation of citations) {
      const chip = make("li", undefined, "chip");
      chip.dataset.nodeId = citation.id;
      const heading = citation.heading || citation.id;
      if (citation.url && /^https?:\/\//.test(citation.url)) {
        const link = make("a", heading, "chip-link");
        link.href = citation.url;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        chip.append(link);
      } else {
        chip.append(make("span", heading, "chip-link"));
      }
      if (citation.instrument) chip.append(make("span", citation.instrument, "instrument"));
      const show = make("button", "Show", "chip-focus");
      show.type = "button";
      show.setAttribute("aria-label", `Show ${heading} in the graph`);
      show.addEventListener("click", () => this.graph.focus([citation.id]));
      chip.append(show);
      view.citations.append(chip);
    }
  }

  busy(streaming) {
    this.el.send.disabled = streaming;
    this.el.stop.disabled = !streaming;
    this.el.messages.setAttribute("aria-busy", String(streaming));
    for (const b of this.el.messages.querySelectorAll(".message-action")) {
      b.disabled = streaming || b.dataset.off === "1";
    }
  }

  ask(question) {
    this.el.question.value = "";
    const body = { message: question, ...this.turnExtras() };
    if (this.conversationId) body.conversationId = this.conversationId;
    return this.turn("/api/chat", body, question);
  }

  /** One streamed turn (`/api/chat`, an edit's, a regeneration's): `question` is shown first,
   * unless null (a regeneration asks the stored question again). */
  async turn(path, body, question) {
    if (question !== null) this.addMessage("user", question);
    const view = this.addMessage("assistant", "");
    view.item.classList.add("streaming");
    const controller = new AbortController();
    this.controller = controller;
    this.busy(true);
    let frame = 0;
    let ran = false; // the turn ran (a `done` came): the server holds its messages
    try {
      for await (const event of this.api.events("POST", path, { body, signal: controller.signal })) {
        const data = JSON.parse(event.data);
        if (event.event === "progress") {
          // Where the turn is until its first text (issue 26); the answer replaces it.
          if (!view.text || data.stage === "capture") {
            view.status.textContent = PROGRESS[data.stage]?.(data) ?? "";
          }
        } else if (event.event === "metadata") {
          this.conversationId = data.conversationId;
          this.onConversation(data.conversationId, true); // true: this turn started it
          // Material changes of what this conversation relied on (ADR 0035): told at the start
          // of the answer, above its text (issue 26), whatever the model's text says.
          for (const change of data.changed || []) {
            const banner = make("p", `Changed since your last question: ${change.description}`, "changed");
            banner.setAttribute("role", "note");
            banner.dataset.nodeId = change.nodeId || "";
            view.item.insertBefore(banner, view.body);
          }
        } else if (event.event === "text") {
          if (!view.text) view.status.textContent = "";
          view.text += data.delta;
          if (!frame) frame = requestAnimationFrame(() => { frame = 0; this.render(view); });
        } else if (event.event === "concepts") {
          this.captured.push(...data.concepts);
          this.graph.addCaptured(data.concepts);
        } else if (event.event === "warning") {
          this.note(view, data);
        } else if (event.event === "error") {
          view.item.append(make("p", data.message, "error"));
        } else if (event.event === "done") {
          ran = true;
          this.finish(view, data);
        }
      }
    } catch (error) {
      if (controller.signal.aborted) {
        view.status.textContent = "(stopped)";
        view.item.classList.add("stopped");
      } else {
        this.failed(error, view.item);
      }
    } finally {
      if (frame) cancelAnimationFrame(frame);
      this.render(view);
      view.item.classList.remove("streaming");
      if (this.controller === controller) this.controller = null;
      this.busy(false);
      this.refreshConversations();
      // the new messages' ids and versions (a stopped turn's too: the server kept it)
      if (ran || controller.signal.aborted) await this.sync();
    }
  }

  finish(view, done) {
    this.conversationId = done.conversationId;
    view.status.textContent = "";
    if (done.refused) {
      view.item.classList.add("refused");
      const reason = REFUSALS[done.refused] || done.refused;
      const banner = make("p", `No answer: ${reason}.`, "refusal");
      banner.setAttribute("role", "note");
      view.item.insertBefore(banner, view.body);
    } else {
      this.showCitations(view, done.citations || []);
      if (typeof done.confidence === "number") {
        view.status.textContent = `confidence ${Math.round(done.confidence * 100)}%`;
      }
    }
    if (done.status && done.status !== "complete") view.status.textContent += ` (${done.status})`;
    if (done.referencedNodes && done.referencedNodes.length) this.graph.focus(done.referencedNodes);
  }

  stop() {
    if (this.controller) this.controller.abort();
  }
}
