// A small Markdown subset rendered straight into DOM nodes. Model text is never parsed as HTML:
// every piece of it becomes a text node, so markup in an answer is shown, never run.
// Blocks: paragraphs, #-headings, "-"/"*" and "1." lists, "> " quotes, ``` code fences, and
// "| a | b |" tables with a "|---|---|" line under their head (the what-if comparison, issue 28).
// Inline: `code`, **bold**, *italic*, [text](https://…) links and [NODE:ID] citations, which
// become buttons that show the node in the graph.
// Links are model output: only a citation's URL (the turn's own evidence) or a page on an
// official host (OFFICIAL_HOSTS, and their subdomains) becomes clickable; any other link is shown
// as its text followed by the address, as text (issue 30).

/** Hosts whose pages an answer may link to, besides the turn's citation URLs. */
export const OFFICIAL_HOSTS = [
  "europa.eu", // EUR-Lex, the Commission, the Official Journal
  "gov.ie", "irishstatutebook.ie", "revenue.ie", "citizensinformation.ie", "pensionsauthority.ie",
  "gov.uk", "legislation.gov.uk", "nidirect.gov.uk",
];

/** Whether `href` may be a clickable link: https on an official host, or a citation's URL. */
export function linkAllowed(href, citationUrls = []) {
  if (citationUrls.includes(href)) return true;
  let url;
  try {
    url = new URL(href);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  return OFFICIAL_HOSTS.some((official) => host === official || host.endsWith(`.${official}`));
}

const INLINE =
  /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\s][^*\n]*\*)|(\[[^\]\n]+\]\((https?:\/\/[^\s)]+)\))|(\[([A-Z][A-Z0-9_]*(?::[A-Za-z0-9_.-]+)+)\])/g;

function inline(text, parent, onCite, citationUrls) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.append(document.createTextNode(text.slice(last, match.index)));
    last = match.index + match[0].length;
    const [whole, code, bold, italic, link, href, cite, nodeId] = match;
    if (code) {
      parent.append(element("code", code.slice(1, -1)));
    } else if (bold) {
      const strong = document.createElement("strong");
      inline(bold.slice(2, -2), strong, onCite, citationUrls);
      parent.append(strong);
    } else if (italic) {
      const em = document.createElement("em");
      inline(italic.slice(1, -1), em, onCite, citationUrls);
      parent.append(em);
    } else if (link && !linkAllowed(href, citationUrls)) {
      const shown = element("span", `${link.slice(1, link.indexOf("]("))} (${href})`);
      shown.className = "link-refused";
      shown.title = "Not linked: not a citation or an official source";
      parent.append(shown);
    } else if (link) {
      const a = element("a", link.slice(1, link.indexOf("](")));
      a.href = href;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      parent.append(a);
    } else if (cite) {
      const button = element("button", nodeId);
      button.type = "button";
      button.className = "cite-ref";
      button.dataset.nodeId = nodeId;
      button.title = "Show in the graph";
      if (onCite) button.addEventListener("click", () => onCite(nodeId));
      parent.append(button);
    } else {
      parent.append(document.createTextNode(whole));
    }
  }
  if (last < text.length) parent.append(document.createTextNode(text.slice(last)));
}

const TABLE_RULE = /^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/;

/** A table row's cells: "| a | b |" → ["a", "b"]. */
function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function element(tag, text) {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}

/** Replace the children of `container` with `source` rendered; `citationUrls`: the turn's
 * citation URLs, which may be links whatever their host. */
export function renderMarkdown(source, container, onCite, citationUrls = []) {
  const fragment = document.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let paragraph = [];
  let list = null;

  const flush = () => {
    if (paragraph.length) {
      const p = document.createElement("p");
      inline(paragraph.join(" "), p, onCite, citationUrls);
      fragment.append(p);
      paragraph = [];
    }
    list = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("```")) {
      flush();
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) code.push(lines[i]);
      const pre = document.createElement("pre");
      pre.append(element("code", code.join("\n")));
      fragment.append(pre);
      continue;
    }
    if (line.trim().startsWith("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
      flush();
      const table = document.createElement("table");
      const head = document.createElement("tr");
      for (const cell of cells(line)) {
        const th = document.createElement("th");
        inline(cell, th, onCite, citationUrls);
        head.append(th);
      }
      table.append(document.createElement("thead"));
      table.tHead.append(head);
      const body = document.createElement("tbody");
      for (i += 2; i < lines.length && lines[i].trim().startsWith("|"); i++) {
        const row = document.createElement("tr");
        for (const cell of cells(lines[i])) {
          const td = document.createElement("td");
          inline(cell, td, onCite, citationUrls);
          row.append(td);
        }
        body.append(row);
      }
      i--; // the loop's i++ moves to the line after the table
      table.append(body);
      fragment.append(table);
      continue;
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const quote = /^>\s?(.*)$/.exec(line);
    if (line.trim() === "") {
      flush();
    } else if (heading) {
      flush();
      const h = document.createElement(`h${Math.min(heading[1].length + 2, 6)}`);
      inline(heading[2], h, onCite, citationUrls);
      fragment.append(h);
    } else if (bullet || numbered) {
      const tag = bullet ? "ul" : "ol";
      if (paragraph.length) flush();
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = document.createElement(tag);
        fragment.append(list);
      }
      const li = document.createElement("li");
      inline((bullet || numbered)[1], li, onCite, citationUrls);
      list.append(li);
    } else if (quote) {
      flush();
      const blockquote = document.createElement("blockquote");
      inline(quote[1], blockquote, onCite, citationUrls);
      fragment.append(blockquote);
    } else {
      list = null;
      paragraph.push(line.trim());
    }
  }
  flush();
  container.replaceChildren(fragment);
}
