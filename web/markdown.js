// A small Markdown subset rendered straight into DOM nodes. Model text is never parsed as HTML:
// every piece of it becomes a text node, so markup in an answer is shown, never run.
// Blocks: paragraphs, #-headings, "-"/"*" and "1." lists, "> " quotes, ``` code fences.
// Inline: `code`, **bold**, *italic*, [text](https://…) links and [NODE:ID] citations, which
// become buttons that show the node in the graph.

const INLINE =
  /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\s][^*\n]*\*)|(\[[^\]\n]+\]\((https?:\/\/[^\s)]+)\))|(\[([A-Z][A-Z0-9_]*(?::[A-Za-z0-9_.-]+)+)\])/g;

function inline(text, parent, onCite) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.append(document.createTextNode(text.slice(last, match.index)));
    last = match.index + match[0].length;
    const [whole, code, bold, italic, link, href, cite, nodeId] = match;
    if (code) {
      parent.append(element("code", code.slice(1, -1)));
    } else if (bold) {
      const strong = document.createElement("strong");
      inline(bold.slice(2, -2), strong, onCite);
      parent.append(strong);
    } else if (italic) {
      const em = document.createElement("em");
      inline(italic.slice(1, -1), em, onCite);
      parent.append(em);
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

function element(tag, text) {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}

/** Replace the children of `container` with `source` rendered. */
export function renderMarkdown(source, container, onCite) {
  const fragment = document.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let paragraph = [];
  let list = null;

  const flush = () => {
    if (paragraph.length) {
      const p = document.createElement("p");
      inline(paragraph.join(" "), p, onCite);
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
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const quote = /^>\s?(.*)$/.exec(line);
    if (line.trim() === "") {
      flush();
    } else if (heading) {
      flush();
      const h = document.createElement(`h${Math.min(heading[1].length + 2, 6)}`);
      inline(heading[2], h, onCite);
      fragment.append(h);
    } else if (bullet || numbered) {
      const tag = bullet ? "ul" : "ol";
      if (paragraph.length) flush();
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = document.createElement(tag);
        fragment.append(list);
      }
      const li = document.createElement("li");
      inline((bullet || numbered)[1], li, onCite);
      list.append(li);
    } else if (quote) {
      flush();
      const blockquote = document.createElement("blockquote");
      inline(quote[1], blockquote, onCite);
      fragment.append(blockquote);
    } else {
      list = null;
      paragraph.push(line.trim());
    }
  }
  flush();
  container.replaceChildren(fragment);
}
