// Server-Sent Events over fetch. EventSource can neither POST (the chat) nor send an
// Authorization header (the patch feed), so both streams are read from a fetch body.
// The parser follows the WHATWG event-stream rules: CR, LF or CRLF end a line (a CR at the end
// of a chunk waits for the next one), a blank line dispatches, ":" starts a comment.

export class SseParser {
  constructor() {
    this.buffer = "";
    this.lastEventId = "";
    this.reset();
  }

  reset() {
    this.event = "";
    this.data = [];
    this.hasData = false;
  }

  /** Feed decoded text; returns the events it completed, as {event, data, id}. */
  push(text) {
    this.buffer += text;
    const events = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break; // CRLF split
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  line(line) {
    if (line === "") {
      if (!this.hasData) {
        this.reset();
        return null;
      }
      const event = { event: this.event || "message", data: this.data.join("\n"), id: this.lastEventId };
      this.reset();
      return event;
    }
    if (line.startsWith(":")) return null; // a comment: heartbeats
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") {
      this.data.push(value);
      this.hasData = true;
    } else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    return null;
  }
}

/** The events of a fetch response, as they arrive; ends when the body ends. */
export async function* readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield* parser.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
