// Sign-in and wiring. The key or token lives in sessionStorage (this tab only) and is sent as
// a bearer header; a 401 anywhere signs out with a message.
import { Api, ApiError } from "./api.js";
import { ChatView } from "./chat.js";
import { GraphView } from "./graph.js";

const KEY = "regintel.token";
const $ = (id) => document.getElementById(id);
let session = null;

function showSignIn(message) {
  if (session) {
    session.graph.close();
    session = null;
  }
  sessionStorage.removeItem(KEY);
  $("workspace").hidden = true;
  $("whoami").hidden = true;
  $("sign-in").hidden = false;
  const error = $("sign-in-error");
  error.hidden = !message;
  error.textContent = message || "";
  $("sign-in-key").focus();
}

async function signIn(token) {
  const api = new Api(token);
  let me;
  try {
    me = await api.json("GET", "/api/session");
  } catch (error) {
    const rejected = error instanceof ApiError && error.status === 401;
    showSignIn(rejected ? "That key or token was not accepted." : `Sign-in failed: ${error.message}`);
    return;
  }
  sessionStorage.setItem(KEY, token);
  $("sign-in").hidden = true;
  $("workspace").hidden = false;
  $("whoami").hidden = false;
  $("whoami-name").textContent = `${me.userId} · ${me.tenantId}${me.role === "admin" ? " · operator" : ""}`;
  const expired = () => showSignIn("Your session is no longer valid: sign in again.");
  const graph = new GraphView({
    api,
    onUnauthorized: expired,
    elements: {
      canvas: $("cy"), legend: $("legend"), jurisdiction: $("jurisdiction"),
      details: $("node-details"), status: $("graph-status"), clearFocus: $("clear-focus"),
    },
  });
  const chat = new ChatView({
    api,
    graph,
    onUnauthorized: expired,
    elements: {
      form: $("ask-form"), question: $("question"), send: $("send"), stop: $("stop"),
      messages: $("messages"), conversations: $("conversation-list"),
      newConversation: $("new-conversation"),
    },
  });
  session = { api, graph, chat };
  window.regintel = session; // read by the browser tests and handy in the console
  chat.refreshConversations();
  $("question").focus();
  graph.start().catch((error) => {
    if (error instanceof ApiError && error.status === 401) expired();
    else graph.status(`The graph could not be loaded: ${error.message}`);
  });
}

function init() {
  const environment = document.querySelector('meta[name="regintel-environment"]').content;
  $("dev-keys").hidden = environment !== "dev";
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("sign-in-key").value.trim();
    $("sign-in-key").value = "";
    if (token) signIn(token);
  });
  $("sign-out").addEventListener("click", () => showSignIn(""));
  const stored = sessionStorage.getItem(KEY);
  if (stored) signIn(stored);
  else showSignIn("");
}

init();
