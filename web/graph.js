// The graph view: a filtered snapshot laid out once (Cytoscape.js, fCoSE force-directed layout),
// then live patches from GET /api/graph/patches. Nodes already placed never move again: new
// nodes start beside a placed neighbour and cose runs over them with every placed node locked.
// The patch feed is read with fetch (it needs the Authorization header) and resumed after a
// drop with Last-Event-ID and since=<latest timestamp seen>; a meta.resync patch reloads the
// snapshot.
//
// A large graph (more than OVERVIEW_ABOVE nodes; the snapshot alone may bring 2,000) opens as
// an overview (issue 26, defect 10; ADR 0057): only the instruments and places (acts,
// statutes, regimes, treaties, jurisdictions) and the nodes held by nothing loaded are drawn,
// each labelled with the number of parts it holds (what is PART_OF it, UNDER_REGIME it or
// IN_JURISDICTION of it, down to the next drawn node); an answer's referenced nodes and their
// neighbours are drawn beside them; a tap on a drawn node draws its parts, and "Every node"
// draws everything. Whatever is drawn, a label is shown only where it overlaps no label of a
// more important node (focus, neighbour of the focus, provisional, overview node, then by
// degree), and faded nodes have none. Above DRAFT_LAYOUT_ABOVE nodes the layout is fCoSE's
// spectral draft.
import cytoscape from "./vendor/cytoscape.esm.min.js";
import { ApiError } from "./api.js";

cytoscape.use(window.cytoscapeFcose); // vendor/cytoscape-fcose.js, loaded before this module

// Legal provisions below article level (paragraphs, recitals) and alias labels are left out of
// the overview: they are thousands of nodes. A cited one is fetched when an answer focuses it.
export const VIEW_LABELS = [
  "Jurisdiction", "Region", "Agreement", "Treaty", "Regime", "Statute", "Section",
  "EURegulation", "EUDirective", "EUDecision", "Article", "Annex", "Chapter", "Benefit",
  "Relief", "Condition", "Obligation", "Threshold", "Rate", "Form", "Timeline", "Guidance",
  "Case", "Update", "Concept",
];
const SNAPSHOT_LIMIT = 2000;
export const OVERVIEW_ABOVE = 500;
const DRAFT_LAYOUT_ABOVE = 1500;
// Drawn in the overview whatever holds them: the instruments and the places.
const OVERVIEW_KINDS = new Set([
  "Jurisdiction", "Region", "Agreement", "Treaty", "Regime", "Statute", "EURegulation",
  "EUDirective", "EUDecision",
]);
// The edges that say what holds a node, in the order they are followed.
const CONTAINMENT = ["PART_OF", "UNDER_REGIME", "IN_JURISDICTION"];
const FOLLOW = ["CITES", "PART_OF"];

const COLOURS = {
  Jurisdiction: "#1b4965", Region: "#1b4965", Agreement: "#5c4d7d", Treaty: "#5c4d7d",
  Regime: "#8a3b12", Statute: "#0b3954", Section: "#3a6ea5", EURegulation: "#0b3954",
  EUDirective: "#0b3954", EUDecision: "#0b3954", Article: "#3a6ea5", Paragraph: "#6c9bd1",
  Recital: "#8fb3de", Annex: "#3a6ea5", Chapter: "#2b5a85", Benefit: "#2d6a4f",
  Relief: "#2d6a4f", Condition: "#6b705c", Obligation: "#9d0208", Threshold: "#b35c00",
  Rate: "#b35c00", Form: "#6b705c", Timeline: "#6b705c", Guidance: "#5a189a", Case: "#5a189a",
  Update: "#5a189a", Concept: "#7b2cbf", Label: "#999999",
};

const STYLE = [
  {
    selector: "node",
    style: {
      "background-color": "data(colour)", width: 12, height: 12, label: "data(short)",
      "font-size": 7, color: "#1d1d1f", "min-zoomed-font-size": 9, "text-valign": "bottom",
      "text-margin-y": 2,
    },
  },
  { selector: "edge", style: { width: 0.6, "line-color": "#b8c0cc", "curve-style": "haystack" } },
  { selector: "node.Concept", style: { shape: "diamond", width: 16, height: 16 } },
  {
    selector: "node.provisional",
    style: {
      "border-width": 3, "border-style": "dashed", "border-color": "#d00000",
      "min-zoomed-font-size": 0,
    },
  },
  { selector: "node.hub", style: { "min-zoomed-font-size": 0 } },
  { selector: ".faded", style: { opacity: 0.12, "text-opacity": 0 } },
  { selector: "node.near", style: { "min-zoomed-font-size": 0 } },
  {
    selector: "node.focus",
    style: {
      width: 22, height: 22, "border-width": 3, "border-color": "#ffb703", "font-size": 9,
      "font-weight": "bold", "min-zoomed-font-size": 0, "z-index": 10,
    },
  },
  { selector: "edge.near", style: { width: 1.6, "line-color": "#f4a261" } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#000000" } },
  { selector: ".hidden", style: { display: "none" } },
  { selector: ".collapsed", style: { display: "none" } },
  // after the others: a label that would overlap a more important one is not drawn
  { selector: "node.nolabel", style: { "text-opacity": 0 } },
];

/** Whether a node's label may be drawn at this zoom: the focus, its neighbours, provisional
 * and overview nodes always; others once their 7 px font is 9 px on screen. */
function labelDrawn(node, zoom) {
  if (node.hasClass("faded")) return false;
  const always = node.hasClass("focus") || node.hasClass("near") || node.hasClass("provisional")
    || node.hasClass("hub");
  const size = node.hasClass("focus") ? 9 : 7;
  return always || size * zoom >= 9;
}

export function jurisdictionOf(id, properties) {
  if (properties && properties.jurisdiction) return String(properties.jurisdiction);
  const parts = id.split(":");
  if (/^[A-Z]{2}$/.test(parts[0])) return parts[0];
  if (parts.length >= 3 && /^[A-Z]{2}$/.test(parts[1])) return parts[1];
  return "other";
}

/** Source links of a node: `source_urls` may be a list or its text form. */
export function sourceLinks(properties) {
  const raw = properties ? properties.source_urls : null;
  const text = Array.isArray(raw) ? raw.join(" ") : String(raw || "");
  return [...new Set(text.match(/https?:\/\/[^\s'",\]]+/g) || [])];
}

function title(node) {
  const p = node.properties || {};
  return String(p.citation || p.name || p.pref_label || p.title || p.text || node.id);
}

function shortTitle(node) {
  const text = title(node);
  return text.length > 40 ? text.slice(0, 39) + "…" : text;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class GraphView {
  constructor({ api, elements, onUnauthorized }) {
    this.api = api;
    this.el = elements;
    this.onUnauthorized = onUnauthorized;
    this.closed = false;
    this.since = "";
    this.lastEventId = "";
    this.hiddenLabels = new Set();
    this.jurisdiction = "";
    this.focused = [];
    this.patchesApplied = 0;
    this.reconnects = 0;
    this.overview = false; // set by load() for a large graph
    this.everyNode = false; // "Every node" pressed
    this.expanded = new Set(); // top-level nodes whose parts are drawn
    this.cy = cytoscape({
      container: elements.canvas,
      style: STYLE,
      minZoom: 0.05,
      maxZoom: 4,
    });
    this.cy.on("tap", "node", (event) => {
      const id = event.target.id();
      if (this.overview && event.target.hasClass("hub")) this.toggleParts(id);
      this.select(id);
    });
    this.cy.on("zoom", () => this.scheduleDeclutter());
    this.listening = new AbortController(); // the elements outlive this view: see close()
    const { signal } = this.listening;
    elements.jurisdiction.addEventListener("change", () => {
      this.jurisdiction = elements.jurisdiction.value;
      this.applyFilters();
    }, { signal });
    elements.clearFocus.addEventListener("click", () => this.clearFocus(), { signal });
    if (elements.everyNode) {
      elements.everyNode.addEventListener("click", () => this.setEveryNode(!this.everyNode), { signal });
    }
  }

  // -- loading ------------------------------------------------------------------------------

  async start() {
    await this.load();
    this.connect();
  }

  async load() {
    this.status("Loading the graph…");
    const query = VIEW_LABELS.map((l) => `labels=${encodeURIComponent(l)}`).join("&");
    const snapshot = await this.api.json("GET", `/api/graph/snapshot?${query}&limit=${SNAPSHOT_LIMIT}`);
    const provisional = this.cy.nodes(".provisional").map((n) => n.json());
    this.cy.elements().remove();
    this.cy.add(snapshot.nodes.map((n) => this.nodeElement(n)));
    this.cy.add(snapshot.edges.filter((e) => this.hasEnds(e)).map((e) => this.edgeElement(e)));
    const timestamps = [...snapshot.nodes, ...snapshot.edges].map((x) => String((x.properties || {}).updated_at || ""));
    this.since = timestamps.reduce((a, b) => (b > a ? b : a), this.since);
    const started = performance.now();
    // Above DRAFT_LAYOUT_ABOVE nodes fCoSE's spectral draft only: its force-directed polish
    // took 7-14 s at 2,000 nodes in headless Chromium, and the overview draws a few hundred.
    const quality = this.cy.nodes().length > DRAFT_LAYOUT_ABOVE ? "draft" : "default";
    this.cy.layout({
      name: "fcose", quality, animate: false, randomize: true, fit: false,
      nodeRepulsion: () => 4500, idealEdgeLength: () => 40, numIter: 1500,
    }).run();
    this.layoutMs = performance.now() - started;
    for (const element of provisional) {
      if (this.cy.getElementById(element.data.id).empty()) this.placeNew(this.cy.add(element));
    }
    this.overview = this.cy.nodes().length > OVERVIEW_ABOVE && !this.everyNode;
    this.refreshLegend();
    this.applyFilters();
    this.cy.fit(this.cy.nodes(":visible"), 20);
    this.declutter();
    if (this.focused.length) this.focus(this.focused);
    this.status(`${this.cy.nodes().length} nodes`);
    this.loadedAt = performance.now(); // laid out and drawn: interactive (bench/web_bench.py)
  }

  nodeElement(node) {
    const properties = node.properties || {};
    const provisional = properties.status === "provisional";
    return {
      group: "nodes",
      data: {
        id: node.id, label: node.label, properties,
        colour: COLOURS[node.label] || "#555555",
        short: shortTitle(node) + (provisional ? " (provisional)" : ""),
        base: shortTitle(node) + (provisional ? " (provisional)" : ""), // short without "(n parts)"
        jurisdiction: jurisdictionOf(node.id, properties),
      },
      classes: [node.label, provisional ? "provisional" : ""].filter(Boolean),
    };
  }

  edgeElement(edge) {
    return {
      group: "edges",
      data: {
        id: `${edge.source}|${edge.type}|${edge.target}`, source: edge.source,
        target: edge.target, type: edge.type,
      },
    };
  }

  hasEnds(edge) {
    return !this.cy.getElementById(edge.source).empty() && !this.cy.getElementById(edge.target).empty();
  }

  /** Add nodes and edges (a patch, a neighbourhood, a capture) without moving placed nodes. */
  merge(nodes, edges, { onlyViewLabels = false } = {}) {
    const added = [];
    for (const node of nodes) {
      const existing = this.cy.getElementById(node.id);
      const element = this.nodeElement(node);
      if (!existing.empty()) {
        existing.data(element.data);
        existing.classes(element.classes);
      } else if (!onlyViewLabels || VIEW_LABELS.includes(node.label)) {
        added.push(element);
      }
    }
    const fresh = this.cy.add(added);
    const edgeElements = edges.map((e) => this.edgeElement(e))
      .filter((e) => this.cy.getElementById(e.data.id).empty() && this.hasEnds(e.data));
    this.cy.add(edgeElements);
    if (fresh.nonempty()) this.placeNew(fresh);
    return fresh;
  }

  placeNew(fresh) {
    const placed = this.cy.nodes().difference(fresh);
    const box = placed.nonempty() ? placed.boundingBox() : { x1: 0, y1: 0, x2: 0, y2: 0, w: 0, h: 0 };
    fresh.forEach((node, i) => {
      const anchors = node.neighborhood("node").intersection(placed);
      const angle = (2 * Math.PI * (i + 1)) / (fresh.length + 1);
      if (anchors.nonempty()) {
        const p = anchors[0].position();
        node.position({ x: p.x + 30 * Math.cos(angle), y: p.y + 30 * Math.sin(angle) });
      } else {
        node.position({ x: box.x2 + 40, y: box.y1 + (box.h * i) / Math.max(fresh.length, 1) });
      }
    });
    // the library's layout over the new nodes and their placed neighbours, placed ones locked
    const scope = fresh.union(fresh.neighborhood());
    const locked = scope.nodes().difference(fresh).filter((n) => !n.locked());
    locked.lock();
    // (the built-in cose honours locked nodes; the scope is small, so it is quick)
    scope.layout({ name: "cose", animate: false, randomize: false, fit: false, numIter: 200 }).run();
    locked.unlock();
    this.refreshLegend();
    this.applyFilters();
  }

  // -- live patches -------------------------------------------------------------------------

  async connect() {
    let delay = 500;
    while (!this.closed) {
      this.stream = new AbortController();
      const headers = this.lastEventId ? { "Last-Event-ID": this.lastEventId } : {};
      const query = this.since ? `?since=${encodeURIComponent(this.since)}` : "";
      let resync = false;
      try {
        const events = this.api.events("GET", `/api/graph/patches${query}`, { signal: this.stream.signal, headers });
        this.status("Live");
        for await (const event of events) {
          if (event.id) this.lastEventId = event.id;
          if (event.event !== "graph_patch") continue;
          delay = 500;
          const patch = JSON.parse(event.data);
          if (patch.meta && patch.meta.resync) {
            resync = true;
            break;
          }
          this.applyPatch(patch);
        }
      } catch (error) {
        if (this.closed) return;
        if (error instanceof ApiError && error.status === 401) {
          this.onUnauthorized();
          return;
        }
      }
      if (this.closed) return;
      if (resync) {
        this.status("Catching up…");
        this.lastEventId = "";
        this.since = "";
        await this.load().catch(() => {});
        continue;
      }
      this.reconnects += 1;
      this.status("Reconnecting…");
      await sleep(delay);
      delay = Math.min(delay * 2, 10000);
    }
  }

  /** Drop the patch connection (it reconnects by itself): for tests and network changes. */
  dropStream() {
    if (this.stream) this.stream.abort();
  }

  applyPatch(patch) {
    const nodes = [...patch.nodes.added, ...patch.nodes.updated];
    const edges = [...patch.edges.added, ...patch.edges.updated];
    for (const id of patch.nodes.removed || []) this.cy.getElementById(id).remove();
    this.merge(nodes, edges, { onlyViewLabels: true });
    const stamps = [patch.timestamp, ...nodes.map((n) => String((n.properties || {}).updated_at || ""))];
    this.since = stamps.reduce((a, b) => (b && b > a ? b : a), this.since);
    this.patchesApplied += 1;
    this.refreshLegend();
    if (this.focused.length) this.focus(this.focused);
  }

  /** Concepts the user's own chat captured (tenants get no provisional nodes in reads). */
  addCaptured(resolved) {
    // Only what the server wrote: a concept it skipped (out_of_coverage,
    // jurisdiction_not_stated, rejected) is no node (issue 26).
    const concepts = resolved.filter((c) => !c.skipped);
    const nodes = concepts.map((c) => ({
      id: c.id, label: "Concept",
      properties: { pref_label: c.prefLabel, status: c.status, jurisdiction: jurisdictionOf(c.id, null) },
    }));
    const edges = concepts.flatMap((c) => (c.alignedWith || []).map((target) => ({ source: c.id, target, type: "ALIGNS_WITH" })));
    const known = nodes.filter((n) => !this.cy.getElementById(n.id).empty());
    // a reviewed concept already in the graph keeps its properties; only new ones are added
    this.merge(nodes.filter((n) => !known.includes(n)), edges);
  }

  // -- focus, filters, legend -----------------------------------------------------------------

  async focus(nodeIds) {
    this.focused = [...nodeIds];
    const missing = nodeIds.filter((id) => this.cy.getElementById(id).empty()).slice(0, 12);
    for (const id of missing) {
      try {
        const around = await this.api.json("GET", `/api/graph/nodes/${encodeURIComponent(id)}/neighbourhood?limit=50`);
        this.merge(around.nodes, around.edges);
      } catch {
        // not visible to this tenant (or gone): nothing to show
      }
    }
    const focus = this.cy.collection(nodeIds.map((id) => this.cy.getElementById(id)).filter((n) => n.nonempty()));
    this.cy.elements().removeClass("focus near").addClass("faded");
    if (focus.empty()) {
      this.cy.elements().removeClass("faded");
      this.applyFilters();
      return;
    }
    const near = focus.closedNeighborhood();
    near.removeClass("faded").addClass("near");
    focus.addClass("focus");
    this.applyFilters(); // in the overview, the referenced neighbourhood is drawn first
    this.cy.fit(near.filter(":visible"), 40);
    this.declutter();
  }

  clearFocus() {
    this.focused = [];
    this.cy.elements().removeClass("focus near faded");
    this.applyFilters();
    this.cy.fit(this.cy.elements(":visible"), 20);
    this.declutter();
  }

  /** Draw every node (true) or the overview (false; only for a large graph). */
  setEveryNode(on) {
    this.everyNode = on;
    this.overview = !on && this.cy.nodes().length > OVERVIEW_ABOVE;
    if (this.el.everyNode) this.el.everyNode.textContent = on ? "Overview" : "Every node";
    this.applyFilters();
    this.cy.fit(this.cy.nodes(":visible"), 20);
    this.declutter();
  }

  /** Draw or put away the parts of a top-level node (the overview's "on demand"). */
  toggleParts(id) {
    if (this.expanded.has(id)) this.expanded.delete(id);
    else this.expanded.add(id);
    this.applyFilters();
    this.declutter();
  }

  /** The node that holds this one, if loaded: what it is PART_OF, else the regime it is
   * UNDER_REGIME, else its jurisdiction (IN_JURISDICTION). */
  parentOf(node) {
    for (const type of CONTAINMENT) {
      const up = node.outgoers(`edge[type = "${type}"]`).targets();
      if (up.nonempty() && up[0].id() !== node.id()) return up[0];
    }
    return null;
  }

  applyFilters() {
    const overview = this.overview;
    // In the overview a node is drawn when it is an instrument or a jurisdiction, is held by
    // nothing loaded, is held by a drawn node whose parts were asked for, or is referenced
    // (the focus's neighbourhood) or provisional. Every other node counts as a part of its
    // nearest drawn holder.
    const shown = new Map();
    const isShown = (node, depth = 0) => {
      const id = node.id();
      if (shown.has(id)) return shown.get(id);
      let on = true;
      if (overview && !OVERVIEW_KINDS.has(node.data("label")) && !node.hasClass("near")
          && !node.hasClass("provisional")) {
        const parent = this.parentOf(node);
        on = !parent || depth > 8 || (this.expanded.has(parent.id()) && isShown(parent, depth + 1));
      }
      shown.set(id, on);
      return on;
    };
    const holderOf = (node) => {
      let current = node;
      for (let depth = 0; depth < 8 && !isShown(current); depth += 1) {
        const parent = this.parentOf(current);
        if (!parent) break;
        current = parent;
      }
      return current;
    };
    const parts = new Map();
    const holders = new Set(); // drawn nodes with parts (drawn or not): a tap toggles them
    if (overview) {
      this.cy.nodes().forEach((node) => {
        const parent = this.parentOf(node);
        if (parent) holders.add(parent.id());
        if (isShown(node)) return;
        const holder = holderOf(node);
        if (holder !== node) parts.set(holder.id(), (parts.get(holder.id()) || 0) + 1);
      });
    }
    this.cy.batch(() => {
      this.cy.nodes().forEach((node) => {
        const hidden = this.hiddenLabels.has(node.data("label"))
          || (this.jurisdiction && node.data("jurisdiction") !== this.jurisdiction);
        node.toggleClass("hidden", Boolean(hidden));
        const drawn = isShown(node);
        node.toggleClass("collapsed", !drawn);
        node.toggleClass("hub", overview && drawn && holders.has(node.id()));
        const n = parts.get(node.id()) || 0;
        const base = node.data("base");
        const short = n ? `${base} (${n} ${n === 1 ? "part" : "parts"})` : base;
        if (node.data("short") !== short) node.data("short", short);
      });
    });
    this.scheduleDeclutter();
  }

  scheduleDeclutter() {
    if (this.declutterPending) return;
    this.declutterPending = true;
    setTimeout(() => { // not requestAnimationFrame: a hidden or headless page may starve it
      this.declutterPending = false;
      if (!this.closed) this.declutter();
    }, 30);
  }

  /** Hide the labels that would overlap the label of a more important drawn node. */
  declutter() {
    const zoom = this.cy.zoom();
    const rank = (n) => (n.hasClass("focus") ? 5e6 : 0) + (n.hasClass("near") ? 4e6 : 0)
      + (n.hasClass("provisional") ? 3e6 : 0) + (n.hasClass("hub") ? 2e6 : 0) + n.degree();
    const nodes = this.cy.nodes(":visible").toArray().sort((a, b) => rank(b) - rank(a));
    const cell = 60;
    const grid = new Map();
    const keep = new Set();
    this.cy.batch(() => {
      this.cy.nodes().removeClass("nolabel");
      for (const node of nodes) {
        if (!labelDrawn(node, zoom)) continue;
        const box = node.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
        if (!(box.w > 0)) continue;
        const cells = [];
        for (let x = Math.floor(box.x1 / cell); x <= Math.floor(box.x2 / cell); x += 1) {
          for (let y = Math.floor(box.y1 / cell); y <= Math.floor(box.y2 / cell); y += 1) cells.push(`${x},${y}`);
        }
        const clash = cells.some((c) => (grid.get(c) || []).some((o) => o.x1 < box.x2 && box.x1 < o.x2 && o.y1 < box.y2 && box.y1 < o.y2));
        if (clash) continue;
        keep.add(node.id());
        for (const c of cells) grid.set(c, [...(grid.get(c) || []), box]);
      }
      // every other drawn node says so itself, whatever Cytoscape's min-zoomed-font-size would do
      for (const node of nodes) if (!keep.has(node.id())) node.addClass("nolabel");
    });
  }

  /** Ids of the visible nodes whose label is drawn (for tests). */
  labelled() {
    return this.cy.nodes(":visible").filter((n) => !n.hasClass("nolabel") && !n.hasClass("faded")).map((n) => n.id());
  }

  refreshLegend() {
    const counts = new Map();
    const jurisdictions = new Map();
    this.cy.nodes().forEach((node) => {
      counts.set(node.data("label"), (counts.get(node.data("label")) || 0) + 1);
      jurisdictions.set(node.data("jurisdiction"), (jurisdictions.get(node.data("jurisdiction")) || 0) + 1);
    });
    const legend = this.el.legend;
    const items = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([label, count]) => {
      const item = document.createElement("label");
      item.className = "legend-item";
      item.dataset.label = label;
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = !this.hiddenLabels.has(label);
      box.addEventListener("change", () => {
        if (box.checked) this.hiddenLabels.delete(label);
        else this.hiddenLabels.add(label);
        this.applyFilters();
      });
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.dataset.colour = label;
      const name = document.createElement("span");
      name.textContent = label;
      const number = document.createElement("span");
      number.className = "count";
      number.textContent = String(count);
      item.append(box, swatch, name, number);
      return item;
    });
    legend.querySelectorAll(".legend-item").forEach((item) => item.remove());
    legend.append(...items);
    for (const item of items) {
      item.querySelector(".swatch").style.backgroundColor = COLOURS[item.dataset.label] || "#555555";
    }
    const select = this.el.jurisdiction;
    const options = [["", `All (${this.cy.nodes().length})`], ...[...jurisdictions.entries()].sort().map(([j, n]) => [j, `${j} (${n})`])];
    select.replaceChildren(...options.map(([value, text]) => new Option(text, value, false, value === this.jurisdiction)));
  }

  // -- details ------------------------------------------------------------------------------

  async select(nodeId) {
    const panel = this.el.details;
    panel.hidden = false;
    panel.replaceChildren(Object.assign(document.createElement("p"), { textContent: "Loading…" }));
    let around;
    try {
      around = await this.api.json("GET", `/api/graph/nodes/${encodeURIComponent(nodeId)}/neighbourhood?limit=200`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return this.onUnauthorized();
      around = { nodes: [], edges: [] };
    }
    const element = this.cy.getElementById(nodeId);
    const node = around.nodes.find((n) => n.id === nodeId)
      || (element.nonempty() ? { id: nodeId, label: element.data("label"), properties: element.data("properties") } : null);
    if (!node) {
      panel.replaceChildren(Object.assign(document.createElement("p"), { textContent: `${nodeId} is not in the reviewed graph.` }));
      return;
    }
    this.cy.nodes(":selected").unselect();
    if (element.nonempty()) element.select();
    this.renderDetails(node, around);
  }

  renderDetails(node, around) {
    const panel = this.el.details;
    const make = (tag, text, className) => {
      const el = document.createElement(tag);
      if (text !== undefined) el.textContent = text;
      if (className) el.className = className;
      return el;
    };
    const close = make("button", "Close", "close");
    close.type = "button";
    close.addEventListener("click", () => { panel.hidden = true; });
    const heading = make("h3", title(node));
    const meta = make("p", `${node.label} · ${node.id}`, "node-meta");
    const drawn = this.cy.getElementById(node.id);
    if (this.overview && drawn.nonempty() && drawn.hasClass("hub")) {
      meta.append(make("span", this.expanded.has(node.id) ? " · its parts are drawn" : " · its parts are put away"));
    }
    if ((node.properties || {}).status === "provisional") meta.append(make("span", " provisional", "badge provisional"));
    const parts = [close, heading, meta];
    const properties = node.properties || {};
    if (properties.text || properties.description || properties.definition) {
      parts.push(make("blockquote", String(properties.text || properties.description || properties.definition), "node-text"));
    }
    const table = make("dl", undefined, "properties");
    for (const [key, value] of Object.entries(properties)) {
      if (["text", "description", "definition", "source_urls"].includes(key)) continue;
      table.append(make("dt", key), make("dd", String(value)));
    }
    parts.push(table);
    const links = sourceLinks(properties);
    if (links.length) {
      const list = make("ul", undefined, "sources");
      for (const url of links) {
        const a = make("a", url);
        a.href = url;
        a.target = "_blank";
        a.rel = "noopener noreferrer";
        const li = make("li");
        li.append(a);
        list.append(li);
      }
      parts.push(make("h4", "Sources"), list);
    }
    const byId = new Map(around.nodes.map((n) => [n.id, n]));
    for (const type of [...FOLLOW, ...new Set(around.edges.map((e) => e.type).filter((t) => !FOLLOW.includes(t)))]) {
      const edges = around.edges.filter((e) => e.type === type && (e.source === node.id || e.target === node.id));
      if (!edges.length) continue;
      parts.push(make("h4", type));
      const list = make("ul", undefined, "neighbours");
      for (const edge of edges.slice(0, 40)) {
        const otherId = edge.source === node.id ? edge.target : edge.source;
        const other = byId.get(otherId) || { id: otherId, label: "", properties: {} };
        const button = make("button", `${edge.source === node.id ? "→" : "←"} ${title(other)}`, "neighbour");
        button.type = "button";
        button.dataset.nodeId = otherId;
        button.addEventListener("click", async () => {
          if (this.cy.getElementById(otherId).empty()) this.merge([other], around.edges);
          await this.select(otherId);
        });
        const li = make("li");
        li.append(button);
        list.append(li);
      }
      parts.push(list);
    }
    panel.replaceChildren(...parts);
  }

  status(text) {
    this.el.status.textContent = text;
  }

  /** Read-only state for tests and debugging. */
  positions() {
    const out = {};
    this.cy.nodes().forEach((n) => { out[n.id()] = { ...n.position() }; });
    return out;
  }

  describe(id) {
    const node = this.cy.getElementById(id);
    if (node.empty()) return null;
    return { classes: node.classes(), visible: node.visible(), label: node.data("label") };
  }

  close() {
    this.closed = true;
    this.dropStream();
    this.listening.abort();
    this.el.details.hidden = true;
    this.cy.destroy();
  }
}
