// Sign-in and wiring. The page first reads /app/config.json: which sign-ins this server takes
// (a pasted API key or token; email + password with Supabase Auth when configured). The key or
// access token lives in sessionStorage (this tab only) and is sent as a bearer header; a 401
// anywhere signs out with a message. Operators also get the admin view.
import { Api, ApiError } from "./api.js";
import { AdminView } from "./admin.js";
import { AuthError, SupabaseAuth } from "./auth.js";
import { ChatView } from "./chat.js";
import { GraphView } from "./graph.js";
import { ScenarioLink } from "./scenario_link.js";
import { ScenarioView } from "./scenarios.js";

const KEY = "regintel.token";
const $ = (id) => document.getElementById(id);
let session = null;
let auth = null; // SupabaseAuth when the server offers email sign-in

function endSession() {
  if (session) {
    session.graph.close();
    session.chat.close();
    if (session.admin) session.admin.close();
    session.scenarios.close();
    session.link.close();
    session = null;
  }
  sessionStorage.removeItem(KEY);
}

function showSignIn(message) {
  endSession();
  $("workspace").hidden = true;
  $("admin").hidden = true;
  $("scenarios").hidden = true;
  $("views").hidden = true;
  $("whoami").hidden = true;
  $("sign-in").hidden = false;
  const error = $("sign-in-error");
  error.hidden = !message;
  error.textContent = message || "";
  const first = auth ? $("sign-in-email") : $("sign-in-key");
  (first.offsetParent ? first : $("sign-in-key")).focus();
}

function signOut() {
  if (auth) auth.signOut();
  showSignIn("");
}

function showView(name) {
  const admin = name === "admin" && session && session.admin;
  const scenarios = name === "scenarios" && Boolean(session);
  $("workspace").hidden = Boolean(admin) || scenarios;
  $("admin").hidden = !admin;
  $("scenarios").hidden = !scenarios;
  $("view-research").setAttribute("aria-pressed", String(!admin && !scenarios));
  $("view-admin").setAttribute("aria-pressed", String(Boolean(admin)));
  $("view-scenarios").setAttribute("aria-pressed", String(scenarios));
  if (scenarios) {
    session.scenarios.refresh();
    $("scenario-list-title").focus();
  } else if (admin) {
    session.admin.refresh();
    $("review-title").focus();
  } else if (session) {
    session.graph.cy.resize(); // its container had no size while hidden
    session.link.refresh(); // scenarios made or renamed in the Scenarios view meanwhile
  }
}

async function signIn(token) {
  const api = new Api(token);
  let me;
  try {
    me = await api.json("GET", "/api/session");
  } catch (error) {
    const rejected = error instanceof ApiError && error.status === 401;
    if (auth) auth.forget();
    showSignIn(rejected ? "That key or token was not accepted." : `Sign-in failed: ${error.message}`);
    return;
  }
  sessionStorage.setItem(KEY, token);
  $("sign-in").hidden = true;
  $("workspace").hidden = false;
  $("whoami").hidden = false;
  $("views").hidden = false;
  const roleShown = { admin: " · admin", operator: " · operator" }[me.role] || "";
  $("whoami-name").textContent = `${me.userId} · ${me.tenantId}${roleShown}`;
  const expired = () => {
    if (auth) auth.forget();
    showSignIn("Your session is no longer valid: sign in again.");
  };
  const graph = new GraphView({
    api,
    onUnauthorized: expired,
    elements: {
      canvas: $("cy"), legend: $("legend"), jurisdiction: $("jurisdiction"),
      details: $("node-details"), status: $("graph-status"), clearFocus: $("clear-focus"),
      everyNode: $("every-node"),
    },
  });
  // the scenario a what-if in the shown conversation starts from (issue 28)
  const link = new ScenarioLink({
    api, select: $("conversation-scenario"), status: $("conversation-scenario-status"),
    onUnauthorized: expired,
  });
  const chat = new ChatView({
    api,
    graph,
    onUnauthorized: expired,
    onConversation: (id, started) => link.setConversation(id, started),
    turnExtras: () => link.turnExtras(),
    elements: {
      form: $("ask-form"), question: $("question"), send: $("send"), stop: $("stop"),
      messages: $("messages"), conversations: $("conversation-list"),
      newConversation: $("new-conversation"),
    },
  });
  // a tenant's admin manages its tenant's egress policies; the platform operator also reviews
  // the shared graph (the review queue, guard rejections)
  const admin = me.role === "admin" || me.role === "operator"
    ? new AdminView({
      api, tenantId: me.tenantId, operator: me.role === "operator", onUnauthorized: expired,
      root: $("admin"),
    })
    : null;
  $("view-admin").hidden = !admin;
  // a figure's citation chip opens its rate's node in the graph view (issue 28)
  const openNode = (id) => {
    showView("research");
    graph.focus([id]).then(() => graph.select(id));
  };
  const scenarios = new ScenarioView({ api, root: $("scenarios"), onOpenNode: openNode, onUnauthorized: expired });
  session = { api, graph, chat, admin, scenarios, link, auth, me };
  window.regintel = session; // read by the browser tests and handy in the console
  if (auth && auth.session) {
    auth.onToken = (fresh) => {
      api.token = fresh; // every later request and reconnect carries the new token
      sessionStorage.setItem(KEY, fresh);
    };
    auth.onExpired = () => showSignIn("Your session has expired: sign in again.");
    auth.schedule();
  }
  showView("research");
  chat.refreshConversations();
  $("question").focus();
  graph.start().catch((error) => {
    if (error instanceof ApiError && error.status === 401) expired();
    else graph.status(`The graph could not be loaded: ${error.message}`);
  });
}

async function signInWithPassword(email, password) {
  const button = $("password-submit");
  button.disabled = true;
  try {
    const fresh = await auth.signIn(email, password);
    $("sign-in-password").value = "";
    await signIn(fresh.accessToken);
  } catch (error) {
    const message = error instanceof AuthError ? error.message : String(error);
    showSignIn(`Sign-in failed: ${message}`);
  } finally {
    button.disabled = false;
  }
}

async function loadConfig() {
  try {
    const response = await fetch("/app/config.json", { cache: "no-store" });
    if (response.ok) return await response.json();
  } catch {
    // the server is not answering: offer the key form, which says so when used
  }
  return { environment: "", apiKeys: true, devKeys: false, supabase: null };
}

async function resume() {
  if (auth && auth.restore()) {
    // still valid: sign in with it (a token near its end is refreshed at once, by schedule())
    if (auth.session.expiresAt > Date.now() + 1000 || (await auth.refresh())) {
      return signIn(auth.session.accessToken);
    }
    auth.forget();
    return showSignIn("Your session has expired: sign in again.");
  }
  const stored = sessionStorage.getItem(KEY);
  if (stored) return signIn(stored);
  return showSignIn("");
}

async function init() {
  const config = await loadConfig();
  if (config.supabase) auth = new SupabaseAuth(config.supabase);
  $("password-form").hidden = !auth;
  $("sign-in-form").hidden = Boolean(auth) && !config.apiKeys;
  $("dev-keys").hidden = !config.devKeys;
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("sign-in-key").value.trim();
    $("sign-in-key").value = "";
    if (token) {
      if (auth) auth.forget(); // a pasted token is not refreshed
      signIn(token);
    }
  });
  $("password-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const email = $("sign-in-email").value.trim();
    const password = $("sign-in-password").value;
    if (email && password) signInWithPassword(email, password);
  });
  $("sign-out").addEventListener("click", signOut);
  $("view-research").addEventListener("click", () => showView("research"));
  $("view-admin").addEventListener("click", () => showView("admin"));
  $("view-scenarios").addEventListener("click", () => showView("scenarios"));
  await resume();
}

init();
