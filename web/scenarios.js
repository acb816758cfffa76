// The scenario panel (issue 28, ADR 0063): the caller's scenarios, their facts as a form, each
// evaluation and a comparison of two as tables. Every figure carries citation chips: the graph
// node ids of the rates, bands and credits it used; a chip opens that node in the graph view
// (onOpenNode). Amounts arrive as strings with two decimals and are shown as they came (no
// binary floats). Each snapshot also shows which reliefs, credits and obligations apply by the
// graph's conditions ("cannot tell: missing <fact>" when a fact is absent) and the deadlines
// that bind, each with chips of the item, condition and timeline nodes that decided it
// (ADR 0071). A disposal's date, asset, cost, proceeds and fees, whether it was the main home,
// and losses brought forward are form fields too (CGT and its reliefs, ADR 0086), and so are
// pension contributions, rent, children, the year of bereavement and the yes/no facts the
// household credits turn on (ADR 0091). Everything
// from the server is written with textContent, never as HTML.
import { ApiError } from "./api.js";

const TAXES = { income_tax: "Income tax", usc: "USC", prsi: "PRSI", ni: "National Insurance", cgt: "Capital gains tax" };
const STATUSES = ["single", "married", "civil_partner", "widowed", "separated", "divorced"];
// How a married couple or civil partners are assessed (Ireland); sent only for a couple.
const ASSESSMENTS = [["", "not stated"], ["joint", "joint assessment"], ["separate_assessment", "separate assessment"], ["separate_treatment", "separate treatment"]];
const COUPLE = ["married", "civil_partner"];
const AMOUNTS = [
  ["paye_income", "Employment (PAYE) income"],
  ["self_employed_income", "Self-employed income"],
  ["other_income", "Other income"],
  ["spouse_paye_income", "Spouse's PAYE income"],
  ["spouse_self_employed_income", "Spouse's self-employed income"],
  ["pension_contributions", "Your pension contributions"],
  ["rent_paid", "Rent paid on your home"],
];
// Yes/no facts the credits turn on (ADR 0091): "not stated" sends nothing.
const FLAGS = [
  ["tenancy_registered", "Tenancy registered with the RTB (rent tax credit)"],
  ["single_person_child_carer", "Caring for a child alone (single person child carer credit)"],
  ["marriage_allowance", "Spouse transfers Marriage Allowance to you (UK)"],
];
// Whole numbers: children, and the year the spouse died (widowed credits).
const COUNTS = [
  ["dependent_children", "Dependent children"],
  ["bereaved_in", "Year your spouse died (if widowed)"],
];

// The first disposal's fields (capital gains tax); a scenario's other disposals are kept as stored.
const DISPOSAL = [
  ["asset", "Asset sold", "text"],
  ["acquired_on", "Bought on", "date"],
  ["disposed_on", "Sold on", "date"],
  ["cost", "Cost", "decimal"],
  ["proceeds", "Sale proceeds", "decimal"],
  ["allowable_expenses", "Fees and other allowable costs", "decimal"],
];
const YES_NO = [["", "not stated"], ["true", "yes"], ["false", "no"]];

function make(tag, text, className) {
  const el = document.createElement(tag);
  if (text !== undefined) el.textContent = text;
  if (className) el.className = className;
  return el;
}

function field(form, id, label, input) {
  input.id = id;
  input.name = id;
  form.append(make("label", label), input);
  form.lastChild.previousSibling.htmlFor = id;
  return input;
}

/** "12345.60" as "12,345.60" with the currency's sign (a minus kept in front). */
export function money(amount, sign) {
  if (amount === null || amount === undefined) return "—";
  const text = String(amount);
  const negative = text.startsWith("-");
  const [whole, cents = "00"] = text.replace("-", "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}${sign}${grouped}.${cents.padEnd(2, "0")}`;
}

/** An eligibility entry as words: "applies", "does not apply: not met: …", "cannot tell: missing …". */
export function statusText(entry) {
  if (!entry) return "not relevant";
  if (entry.status === "applies") return "applies";
  if (entry.status === "does_not_apply") {
    const failed = entry.conditions.filter((c) => c.status === "not_met").map((c) => c.name);
    return failed.length ? `does not apply: not met: ${failed.join("; ")}` : "does not apply";
  }
  return entry.missing.length ? `cannot tell: missing ${entry.missing.join(", ")}` : "cannot tell";
}

function entryName(entry) {
  return entry.about ? `${entry.name} (${entry.about})` : entry.name;
}

export class ScenarioView {
  constructor({ api, root, onOpenNode, onUnauthorized }) {
    this.api = api;
    this.root = root;
    this.onOpenNode = onOpenNode;
    this.onUnauthorized = onUnauthorized;
    this.scenarios = [];
    this.editing = null; // the id of the scenario in the form, or null for a new one
    this.original = null; // that scenario as stored: what the form does not show is kept
    this.picked = []; // the scenarios ticked for comparison, in the order ticked
    this.build();
  }

  close() {
    this.root.replaceChildren();
  }

  build() {
    const list = make("section", undefined, "panel scenario-list");
    list.setAttribute("aria-labelledby", "scenario-list-title");
    const title = make("h2", "Scenarios");
    title.id = "scenario-list-title";
    title.tabIndex = -1;
    const fresh = make("button", "New scenario");
    fresh.type = "button";
    fresh.addEventListener("click", () => this.edit(null));
    const compare = make("button", "Compare selected");
    compare.type = "button";
    compare.addEventListener("click", () => this.compareSelected());
    this.items = make("ul", undefined, "scenario-items");
    this.statusLine = make("p", "", "admin-status");
    this.statusLine.setAttribute("role", "status");
    list.append(title, make("p", "Your own what-if facts: never shared, never in the graph. Tick two to compare (the first ticked is the base).", "hint"), fresh, compare, this.statusLine, this.items);

    const facts = make("section", undefined, "panel scenario-form");
    facts.setAttribute("aria-labelledby", "scenario-form-title");
    const formTitle = make("h2", "Facts");
    formTitle.id = "scenario-form-title";
    const form = make("form", undefined, "policy-form");
    form.id = "scenario-form";
    this.inputs = {
      label: field(form, "scenario-label", "Scenario name", make("input")),
      tax_year: field(form, "scenario-year", "Tax year", make("input")),
      jurisdiction: field(form, "scenario-jurisdiction", "Jurisdiction", make("select")),
      status: field(form, "scenario-status", "Civil status", make("select")),
      assessment: field(form, "scenario-assessment", "How the couple is assessed", make("select")),
      age: field(form, "scenario-age", "Age", make("input")),
      spouse_age: field(form, "scenario-spouse-age", "Spouse's age", make("input")),
    };
    this.inputs.assessment.append(...ASSESSMENTS.map(([value, text]) => new Option(text, value)));
    this.inputs.spouse_age.type = "number";
    this.inputs.label.required = true;
    this.inputs.tax_year.type = "number";
    this.inputs.tax_year.value = "2025";
    this.inputs.age.type = "number";
    this.inputs.jurisdiction.append(...["IE", "UK", "NI"].map((j) => new Option(j, j)));
    this.inputs.status.append(...STATUSES.map((s) => new Option(s.replace("_", " "), s)));
    for (const [key, label] of AMOUNTS) {
      const input = field(form, `scenario-${key.replaceAll("_", "-")}`, label, make("input"));
      input.inputMode = "decimal";
      input.placeholder = "0.00";
      this.inputs[key] = input;
    }
    for (const [key, label] of FLAGS) {
      const select = field(form, `scenario-${key.replaceAll("_", "-")}`, label, make("select"));
      select.append(...YES_NO.map(([value, text]) => new Option(text, value)));
      this.inputs[key] = select;
    }
    for (const [key, label] of COUNTS) {
      const input = field(form, `scenario-${key.replaceAll("_", "-")}`, label, make("input"));
      input.type = "number";
      this.inputs[key] = input;
    }
    const sale = make("fieldset", undefined, "scenario-disposal");
    sale.append(make("legend", "A disposal (capital gains tax)"));
    this.disposalInputs = {};
    for (const [key, label, kind] of DISPOSAL) {
      const input = field(sale, `scenario-disposal-${key.replaceAll("_", "-")}`, label, make("input"));
      if (kind === "date") input.type = "date";
      if (kind === "decimal") {
        input.inputMode = "decimal";
        input.placeholder = "0.00";
      }
      this.disposalInputs[key] = input;
    }
    const residence = field(sale, "scenario-disposal-main-residence", "Your only or main home throughout", make("select"));
    residence.append(...YES_NO.map(([value, text]) => new Option(text, value)));
    this.disposalInputs.main_residence = residence;
    const losses = field(sale, "scenario-losses-brought-forward", "Capital losses brought forward", make("input"));
    losses.inputMode = "decimal";
    losses.placeholder = "0.00";
    this.inputs.capital_losses_brought_forward = losses;
    form.append(sale);
    const save = make("button", "Save and evaluate");
    save.type = "submit";
    form.append(save);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.save();
    });
    facts.append(formTitle, form);

    this.results = make("section", undefined, "panel scenario-results");
    this.results.setAttribute("aria-labelledby", "scenario-results-title");
    const resultsTitle = make("h2", "Results");
    resultsTitle.id = "scenario-results-title";
    this.resultBody = make("div");
    this.results.append(resultsTitle, this.resultBody);
    this.root.replaceChildren(list, facts, this.results);
  }

  status(text, error = false) {
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle("error", error);
  }

  async call(method, path, body) {
    try {
      return await this.api.json(method, path, body === undefined ? undefined : { body });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.onUnauthorized();
      throw error;
    }
  }

  async refresh() {
    try {
      this.scenarios = await this.call("GET", "/api/scenarios?limit=100");
    } catch (error) {
      this.status(`Scenarios could not be loaded: ${error.message}`, true);
      return;
    }
    this.items.replaceChildren(...this.scenarios.map((s) => this.item(s)));
    if (!this.scenarios.length) this.items.append(make("li", "No scenarios yet.", "hint"));
  }

  item(scenario) {
    const li = make("li", undefined, "scenario-item");
    li.dataset.scenarioId = scenario.id;
    const pick = make("input");
    pick.type = "checkbox";
    pick.value = scenario.id;
    pick.setAttribute("aria-label", `Compare ${scenario.label}`);
    pick.checked = this.picked.includes(scenario.id);
    pick.addEventListener("change", () => {
      this.picked = this.picked.filter((id) => id !== scenario.id);
      if (pick.checked) this.picked.push(scenario.id);
    });
    const open = make("button", scenario.label, "scenario-open");
    open.type = "button";
    open.addEventListener("click", () => this.edit(scenario));
    const remove = make("button", "Delete", "scenario-delete");
    remove.type = "button";
    remove.setAttribute("aria-label", `Delete ${scenario.label}`);
    remove.addEventListener("click", () => this.remove(scenario));
    li.append(pick, open, remove);
    return li;
  }

  edit(scenario) {
    this.editing = scenario ? scenario.id : null;
    this.original = scenario || null;
    const facts = scenario ? scenario.snapshots[0].facts : {};
    this.inputs.label.value = scenario ? scenario.label : "";
    this.inputs.tax_year.value = facts.tax_year || 2025;
    this.inputs.jurisdiction.value = facts.jurisdiction || "IE";
    this.inputs.status.value = facts.status || "single";
    this.inputs.age.value = facts.age ?? "";
    this.inputs.assessment.value = facts.assessment || "";
    this.inputs.spouse_age.value = facts.spouse_age ?? "";
    for (const [key] of AMOUNTS) this.inputs[key].value = facts[key] && Number(facts[key]) ? facts[key] : "";
    for (const [key] of FLAGS) this.inputs[key].value = facts[key] === undefined || facts[key] === null ? "" : String(facts[key]);
    for (const [key] of COUNTS) this.inputs[key].value = facts[key] ?? "";
    const losses = facts.capital_losses_brought_forward;
    this.inputs.capital_losses_brought_forward.value = losses && Number(losses) ? losses : "";
    const disposal = (facts.disposals || [])[0] || {};
    for (const [key] of DISPOSAL) {
      const value = disposal[key];
      this.disposalInputs[key].value = value === undefined || value === null || (key === "allowable_expenses" && !Number(value)) ? "" : value;
    }
    this.disposalInputs.main_residence.value = disposal.main_residence === undefined || disposal.main_residence === null ? "" : String(disposal.main_residence);
    if (scenario) this.evaluate(scenario);
    else this.resultBody.replaceChildren();
    this.inputs.label.focus();
  }

  body() {
    const year = Number(this.inputs.tax_year.value);
    const jurisdiction = this.inputs.jurisdiction.value;
    // Editing: the form shows the first snapshot's main facts and first disposal only; its other
    // facts (other disposals, pension, rent, a spouse's…) and the other snapshots are kept as
    // stored, never dropped.
    const kept = this.editing && this.original ? this.original.snapshots : [];
    const first = kept[0];
    const facts = first ? { ...first.facts } : {};
    for (const key of ["age", "spouse_age", "assessment", "capital_losses_brought_forward", ...AMOUNTS.map(([k]) => k), ...FLAGS.map(([k]) => k), ...COUNTS.map(([k]) => k)]) delete facts[key];
    const status = this.inputs.status.value;
    Object.assign(facts, { tax_year: year, jurisdiction, status });
    if (this.inputs.age.value !== "") facts.age = Number(this.inputs.age.value);
    if (COUPLE.includes(status)) {
      if (this.inputs.assessment.value) facts.assessment = this.inputs.assessment.value;
      if (this.inputs.spouse_age.value !== "") facts.spouse_age = Number(this.inputs.spouse_age.value);
    }
    for (const [key] of FLAGS) if (this.inputs[key].value) facts[key] = this.inputs[key].value === "true";
    for (const [key] of COUNTS) if (this.inputs[key].value !== "") facts[key] = Number(this.inputs[key].value);
    for (const key of [...AMOUNTS.map(([k]) => k), "capital_losses_brought_forward"]) {
      const value = this.inputs[key].value.replaceAll(",", "").trim();
      if (value) facts[key] = value;
    }
    // the first disposal as the form shows it (its other facts kept), the others as stored; all
    // its fields empty: no first disposal. A half-filled one is sent and the server says why not.
    const stored = facts.disposals || [];
    const entered = {};
    for (const [key, , kind] of DISPOSAL) {
      const value = this.disposalInputs[key].value.trim();
      if (value) entered[key] = kind === "decimal" ? value.replaceAll(",", "") : value;
    }
    const residence = this.disposalInputs.main_residence.value;
    const rest = stored.slice(1);
    if (Object.keys(entered).length) {
      const disposal = { ...(stored[0] || {}), ...entered };
      if (!entered.allowable_expenses) delete disposal.allowable_expenses;
      if (residence) disposal.main_residence = residence === "true";
      else delete disposal.main_residence;
      facts.disposals = [disposal, ...rest];
    } else {
      facts.disposals = rest;
    }
    const same = first && first.facts.tax_year === year && first.facts.jurisdiction === jurisdiction;
    const asAt = jurisdiction === "IE" ? `${year}-12-31` : `${year + 1}-04-05`;
    const snapshot = same ? { ...first, facts } : { label: String(year), as_at: asAt, facts };
    return { label: this.inputs.label.value.trim(), snapshots: [snapshot, ...kept.slice(1)] };
  }

  async save() {
    let saved;
    try {
      saved = this.editing
        ? await this.call("PUT", `/api/scenarios/${encodeURIComponent(this.editing)}`, this.body())
        : await this.call("POST", "/api/scenarios", this.body());
    } catch (error) {
      this.status(`Not saved: ${error.message}`, true);
      return;
    }
    this.editing = saved.id;
    this.original = saved;
    this.status(`Saved “${saved.label}”.`);
    await this.refresh();
    await this.evaluate(saved);
  }

  async remove(scenario) {
    try {
      await this.api.request("DELETE", `/api/scenarios/${encodeURIComponent(scenario.id)}`);
    } catch (error) {
      this.status(`Not deleted: ${error.message}`, true);
      return;
    }
    if (this.editing === scenario.id) this.edit(null);
    this.status(`Deleted “${scenario.label}”.`);
    await this.refresh();
  }

  async evaluate(scenario) {
    let result;
    try {
      result = await this.call("POST", `/api/scenarios/${encodeURIComponent(scenario.id)}/evaluate`);
    } catch (error) {
      this.status(`Not evaluated: ${error.message}`, true);
      return;
    }
    const parts = [];
    for (const snapshot of result.snapshots) {
      const sign = snapshot.jurisdiction === "IE" ? "€" : "£";
      const table = this.table(`${result.label} · ${snapshot.label} (${snapshot.jurisdiction} ${snapshot.tax_year}, values in force ${snapshot.period_from} to ${snapshot.period_to})`, ["Line", "Amount", "Sources"]);
      table.classList.add("scenario-evaluation");
      for (const line of snapshot.lines) {
        table.tBodies[0].append(this.row([`${TAXES[line.tax] || line.tax}: ${line.description}`, money(line.amount, sign)], line.node_ids));
      }
      for (const total of snapshot.totals) {
        const name = `Total ${TAXES[total.tax] || total.tax}${total.person === "you" ? "" : ` (${total.person})`}${total.complete ? "" : " (incomplete)"}`;
        const row = this.row([name, money(total.amount, sign)], total.node_ids);
        row.classList.add("total");
        table.tBodies[0].append(row);
      }
      parts.push(table, this.gaps(snapshot.gaps), ...this.eligibility(snapshot));
    }
    parts.push(make("p", result.disclaimer, "hint"));
    this.resultBody.replaceChildren(...parts);
  }

  /** One snapshot's eligibility and binding deadlines as two tables (none when not assessed). */
  eligibility(snapshot) {
    if (!snapshot.eligibility) return [];
    const where = `${snapshot.label} (${snapshot.jurisdiction} ${snapshot.tax_year}, as at ${snapshot.as_at})`;
    if (!snapshot.eligibility.length) return [make("p", `No relief or obligation in the graph is relevant to ${where}.`, "hint scenario-eligibility-none")];
    const items = this.table(`Who qualifies · ${where}`, ["Relief or obligation", "Status", "Decided by"]);
    items.classList.add("scenario-eligibility");
    const deadlines = this.table(`Deadlines that bind · ${where}`, ["Deadline", "For", "When", "Status", "Sources"]);
    deadlines.classList.add("scenario-deadlines");
    for (const entry of snapshot.eligibility) {
      const row = this.row([entryName(entry), statusText(entry)], entry.node_ids, false);
      row.dataset.status = entry.status;
      items.tBodies[0].append(row);
      for (const deadline of entry.deadlines) {
        const line = this.row([deadline.name, entryName(entry), deadline.text, deadline.status.replace("_", " ")], [deadline.node_id, entry.node_id], false);
        line.dataset.status = deadline.status;
        deadlines.tBodies[0].append(line);
      }
    }
    return deadlines.tBodies[0].rows.length ? [items, deadlines] : [items];
  }

  /** Eligibility and deadlines across the compared scenarios: one row per item or deadline. */
  eligibilityComparison(snapshot, index, labels, evaluations) {
    if (!snapshot.eligibility.length) return [];
    const entries = evaluations.map((e) => (e.snapshots[index] && e.snapshots[index].eligibility) || []);
    const find = (column, item) => entries[column].find((e) => e.node_id === item.node_id && e.about === item.about);
    const items = this.table(`Who qualifies · ${snapshot.label}`, ["Relief or obligation", ...labels, "Decided by"]);
    items.classList.add("scenario-eligibility-comparison");
    const deadlines = this.table(`Deadlines that bind · ${snapshot.label}`, ["Deadline", ...labels, "Sources"]);
    deadlines.classList.add("scenario-deadlines-comparison");
    for (const item of snapshot.eligibility) {
      const found = labels.map((_, column) => find(column, item));
      const name = item.about ? `${item.name} (${item.about})` : item.name;
      const row = this.row([name, ...found.map((e) => statusText(e))], item.node_ids, false);
      if (item.changed) row.classList.add("changed");
      items.tBodies[0].append(row);
      for (const [timeline, ends] of Object.entries(item.deadlines)) {
        const checks = found.map((e) => (e ? e.deadlines.find((d) => d.node_id === timeline) : undefined));
        const named = checks.find((d) => d) || { name: timeline };
        const line = this.row([`${named.name} (${name})`, ...checks.map((d, i) => (d ? d.text : ends[i] || "—"))], [timeline, item.node_id], false);
        if (new Set(ends).size > 1) line.classList.add("changed");
        deadlines.tBodies[0].append(line);
      }
    }
    return deadlines.tBodies[0].rows.length ? [items, deadlines] : [items];
  }

  async compareSelected() {
    const listed = new Set(this.scenarios.map((s) => s.id));
    const ids = this.picked.filter((id) => listed.has(id)); // compared in the order ticked
    if (ids.length < 2) {
      this.status("Tick two scenarios (up to five) to compare them, the base first.", true);
      return;
    }
    let result;
    try {
      result = await this.call("POST", "/api/scenarios/compare", { scenarioIds: ids.slice(0, 5) });
    } catch (error) {
      this.status(`Not compared: ${error.message}`, true);
      return;
    }
    const labels = result.comparison.scenarios;
    const first = result.evaluations[0].snapshots[0];
    const sign = first && first.jurisdiction === "IE" ? "€" : "£";
    const parts = [];
    for (const snapshot of result.comparison.snapshots) {
      const table = this.table(`Comparison · ${snapshot.label}`, ["Line", ...labels, "Difference", "Sources"]);
      table.classList.add("scenario-comparison");
      for (const [items, total] of [[snapshot.lines, false], [snapshot.totals, true]]) {
        for (const item of items) {
          const name = total ? `Total ${TAXES[item.tax] || item.tax}` : `${TAXES[item.tax] || item.tax}: ${item.description}`;
          const row = this.row([name, ...item.amounts.map((a) => money(a, sign)), money(item.difference, sign)], item.node_ids);
          if (total) row.classList.add("total");
          table.tBodies[0].append(row);
        }
      }
      const index = result.comparison.snapshots.indexOf(snapshot);
      parts.push(table, this.gaps(snapshot.gaps.flat()), ...this.eligibilityComparison(snapshot, index, labels, result.evaluations));
    }
    parts.push(make("p", result.disclaimer, "hint"));
    this.resultBody.replaceChildren(...parts);
    this.status(`Compared ${labels.join(" and ")}.`);
  }

  table(caption, heads) {
    const table = make("table", undefined, "admin-table");
    table.createCaption().textContent = caption;
    const row = table.createTHead().insertRow();
    for (const head of heads) {
      const th = make("th", head);
      th.scope = "col";
      row.append(th);
    }
    table.createTBody();
    return table;
  }

  row(cells, nodeIds, numbers = true) {
    const tr = make("tr");
    cells.forEach((cell, i) => tr.append(make("td", cell, i && numbers ? "number" : undefined)));
    const sources = make("td", undefined, "sources");
    for (const id of nodeIds) {
      const chip = make("button", id, "chip-focus scenario-chip");
      chip.type = "button";
      chip.dataset.nodeId = id;
      chip.title = "Open this value's node in the graph";
      chip.addEventListener("click", () => this.onOpenNode(id));
      sources.append(chip);
    }
    tr.append(sources);
    return tr;
  }

  gaps(gaps) {
    if (!gaps.length) return make("p", "Nothing left out.", "hint");
    const list = make("ul", undefined, "scenario-gaps");
    for (const reason of new Set(gaps.map((gap) => gap.reason))) list.append(make("li", reason));
    const box = make("div");
    box.append(make("h3", "Not computed (gaps)"), list);
    return box;
  }
}
