// The workbench's browser side: sends what the person does, and puts what the server renders in
// place. Which actions exist, what they mean and how things look are the server's; this file only
// moves HTML fragments and keeps typed text until the server has it.
"use strict";

const body = document.body;
let token = document.querySelector('meta[name="tf-token"]').content;
const project = body.dataset.project || "";
let count = Number(body.dataset.count || 0);

function $(id) { return document.getElementById(id); }

const FADE_AFTER_MS = 6000;
let fading = null;
let notePhase = null;

function say(text, kind, fade, phase) {
  // A confirmation ("Sent.") fades after a while; an error, or work under way, stays. `phase`:
  // the step the note is about (a revision's "Revision 2 started" is Phase 2's), which the
  // page may show only after the note, so reaching it does not take the note away.
  const feedback = $("feedback");
  if (!feedback) return;
  clearTimeout(fading);
  notePhase = phase || null;
  feedback.textContent = text;
  feedback.className = kind || "";
  if (fade) fading = setTimeout(() => {
    feedback.classList.add("faded");
    fading = setTimeout(() => { feedback.textContent = ""; feedback.className = ""; }, 600);
  }, FADE_AFTER_MS);
}

async function post(url, payload, headers) {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: Object.assign({"X-ThoughtForge-Token": token}, headers || {"Content-Type": "application/json"}),
      body: payload instanceof Blob ? payload : JSON.stringify(payload),
    });
  } catch (error) {
    throw new Error("Not sent: the server is not answering (" + error.message + "). Your text is kept here.");
  }
  const text = await response.text();
  let data = {};
  try { data = JSON.parse(text); } catch (_) { data = {error: text.trim()}; }
  if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
  return data;
}

// --- staying with the newest message ----------------------------------------------------------
// One rule: the page follows the newest message while the person is at it; once they scroll up
// it stays where they are and a "New messages ↓" marker says more came.

const STICK_PIXELS = 48;

function hiddenBelow() {
  // How far the end of the thread is below the composer's top (negative: above it).
  const end = $("work"), composer = $("composer");
  if (!end || !composer) return 0;
  return end.getBoundingClientRect().bottom - composer.getBoundingClientRect().top;
}

function atNewest() { return hiddenBelow() <= STICK_PIXELS; }

function toNewest() {
  if (!shown("conversation")) return;
  const below = hiddenBelow();
  if (below > -8) window.scrollBy(0, below + 8);
  const marker = $("new-messages");
  if (marker) marker.hidden = true;
}

function keepingNewest(change) {
  // Apply `change` to the thread; follow it if the person was at the newest message.
  const stuck = atNewest();
  change();
  if (stuck) toNewest();
  return stuck;
}

// --- the two panes ----------------------------------------------------------------------------
// Wide screens show the conversation beside the deliverable; narrower ones show one at a time
// as tabs, and a tab whose pane changed out of sight says "new" until it is opened.

const NARROW = window.matchMedia("(max-width: 1080px)");
const PANES = ["conversation", "deliverable"];
let openPane = "conversation";

function shown(pane) { return !NARROW.matches || openPane === pane; }

function tabOf(pane) { return $("tab-" + pane); }

function layOut() {
  for (const pane of PANES) {
    const panel = $(pane), tab = tabOf(pane);
    if (!panel || !tab) continue;
    const open = pane === openPane;
    tab.setAttribute("aria-selected", String(open));
    tab.tabIndex = open ? 0 : -1;
    if (NARROW.matches) {
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", tab.id);
      panel.hidden = !open;
    } else {
      panel.removeAttribute("role");
      panel.removeAttribute("aria-labelledby");
      panel.hidden = false;
    }
  }
}

function openTab(pane, focus) {
  openPane = pane;
  tabOf(pane).querySelector(".tab-badge").hidden = true;
  layOut();
  if (focus) tabOf(pane).focus();
  if (pane === "conversation") toNewest();
  else if (NARROW.matches) window.scrollTo(0, 0);  // the deliverable from its head
}

function changed(pane) {
  // Something new in `pane`: its tab says so while the person looks at the other one.
  const tab = tabOf(pane);
  if (tab && !shown(pane)) tab.querySelector(".tab-badge").hidden = false;
}

function setUpPanes() {
  const tabs = document.querySelector(".pane-tabs");
  if (!tabs) return;
  tabs.addEventListener("click", (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) openTab(tab.getAttribute("aria-controls"), false);
  });
  tabs.addEventListener("keydown", (event) => {
    // The tablist's keys: arrows move between the tabs (and open them), Home and End go to the ends.
    const at = PANES.indexOf(openPane);
    const to = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: PANES.length - 1}[event.key];
    if (to === undefined) return;
    event.preventDefault();
    openTab(PANES[(to + PANES.length) % PANES.length], true);
  });
  NARROW.addEventListener("change", layOut);
  // A done project opens on what it made, at every width (the thread is one tap away).
  if (phaseNow() === "done") openPane = "deliverable";
  layOut();
  // The header stays in view above the panes: the deliverable pane keeps clear of it.
  const header = $("project-header");
  new ResizeObserver(() => {
    body.style.setProperty("--header-height", header.offsetHeight + "px");
  }).observe(header);
}

function phaseNow() {
  const phase = document.querySelector("#project-header .phase[data-phase]");
  return phase ? phase.dataset.phase : "";
}

let phaseShown = null;

function settleWords() {
  // Words of the step before go with it: the composer's "press Revise" once Revise is no
  // longer offered, the feedback line ("Sent.") once the phase moved on.
  const message = $("message");
  if (!document.querySelector('#actions [data-action="revise"]')) message.placeholder = message.dataset.placeholder;
  const phase = phaseNow();
  if (phaseShown !== null && phase !== phaseShown && phase !== notePhase) say("");
  phaseShown = phase;
}

function markOpenProject() {
  // The sidebar says which project this page is (for a screen reader too).
  for (const link of document.querySelectorAll("#sidebar-list .entry > a")) {
    // A History page is its project's too, though it takes no answers (`data-open-project`).
    const shown = project || body.dataset.openProject || "";
    const open = !!shown && link.closest(".entry").dataset.projectId === shown;
    if (open) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
    const folded = link.closest("details");
    if (open && folded) folded.open = true;  // an archived or terminated one: its list unfolds
  }
}

function replaced(element, html) {
  // Put `html` in `element`; whether that changed anything (compared as the browser writes
  // HTML, so the stream's first event, the page as it was served, is no change).
  const parsed = document.createElement("template");
  parsed.innerHTML = html;
  if (!element || element.innerHTML === parsed.innerHTML) return false;
  element.innerHTML = html;
  return true;
}

// --- live updates ---------------------------------------------------------------------------

let source = null;

function connect() {
  const query = new URLSearchParams();
  if (project) { query.set("project", project); query.set("after", String(count)); }
  if (body.dataset.page === "board") query.set("view", "board");
  source = new EventSource("/events?" + query.toString());
  source.addEventListener("hello", (event) => {
    token = JSON.parse(event.data).token;
    const banner = $("connection");
    banner.hidden = true;
    banner.textContent = "";
  });
  source.addEventListener("message", (event) => {
    const data = JSON.parse(event.data);
    const messages = $("messages");
    if (!messages || messages.querySelector('[data-index="' + data.index + '"]')) return;
    const followed = keepingNewest(() => messages.insertAdjacentHTML("beforeend", data.html));
    count = Math.max(count, data.index + 1);
    refreshEdit();
    changed("conversation");
    if (!followed && shown("conversation")) $("new-messages").hidden = false;
  });
  source.addEventListener("reads", (event) => {
    // Where each of the person's messages was read ("read at distillation 3").
    const marks = JSON.parse(event.data);
    keepingNewest(() => {
      for (const [index, text] of Object.entries(marks)) {
        const mark = document.querySelector('.message[data-index="' + index + '"] .read');
        if (mark) { mark.textContent = text; mark.hidden = false; }
      }
    });
  });
  source.addEventListener("state", (event) => {
    const data = JSON.parse(event.data);
    const focused = document.activeElement;
    const focusedAction = focused && focused.closest && focused.closest("#actions") ? focused.dataset.action : null;
    const agent = $("switch-agent") ? $("switch-agent").value : null;
    const budget = $("raise-budget") ? $("raise-budget").value : null;
    // One state, one update: the header, the composer, the pane's head and the sidebar together.
    $("project-header").innerHTML = data.header;
    replaced($("sidebar-list"), data.sidebar);
    markOpenProject();
    if (replaced($("pane-head"), data.pane)) changed("deliverable");
    keepingNewest(() => {
      $("actions").innerHTML = data.actions;
      $("work").innerHTML = data.work;
    });
    if (agent && $("switch-agent")) $("switch-agent").value = agent;
    if (budget && $("raise-budget")) $("raise-budget").value = budget;
    refreshEdit();
    settleWords();
    if (focusedAction) {
      const again = document.querySelector('#actions [data-action="' + focusedAction + '"]');
      if (again) again.focus(); else $("message").focus();
    }
    refreshButtons();
  });
  source.addEventListener("panel", (event) => {
    if (replaced($("panel"), JSON.parse(event.data).html)) changed("deliverable");
  });
  source.addEventListener("inbox", (event) => {
    $("sidebar-list").innerHTML = JSON.parse(event.data).html;
    markOpenProject();
  });
  source.addEventListener("board", (event) => { $("board").innerHTML = JSON.parse(event.data).html; });
  source.onerror = () => {
    source.close();
    const banner = $("connection");
    banner.hidden = false;
    banner.textContent = "Server stopped — reconnecting… (anything you type is kept until it is sent)";
    setTimeout(connect, 2000);
  };
}

// --- the composer -------------------------------------------------------------------------------

function refreshButtons() {
  const message = $("message");
  if (!message) return;
  const empty = !message.value.trim();
  for (const button of document.querySelectorAll("#actions [data-needs-message]")) button.disabled = empty;
}

async function act(button) {
  const message = $("message");
  const action = button.dataset.action;
  if (button.hasAttribute("data-danger") && !window.confirm(button.textContent + " this project for good?")) return;
  const text = message.value;
  if (button.hasAttribute("data-needs-message") && !text.trim()) { say("Write a message first.", "error"); return; }
  for (const b of document.querySelectorAll("#actions button")) b.disabled = true;
  say("Sending…");
  const payload = {action: action, message: text};
  const agent = $("switch-agent");
  if (agent && !button.hasAttribute("data-danger")) payload.agent = agent.value;
  const budget = $("raise-budget");
  if (budget && budget.value && !button.hasAttribute("data-danger")) payload.budget_usd = Number(budget.value);
  try {
    const result = await post("/projects/" + project + "/answer", payload);
    if (text && message.value === text) message.value = "";
    say(result.note, "", true, result.phase);
    toNewest();  // what you sent is where you look next, as in any chat
  } catch (error) {
    say(error.message, "error");
  } finally {
    for (const b of document.querySelectorAll("#actions button")) b.disabled = false;
    refreshButtons();
  }
}

// --- editing the AI's draft ------------------------------------------------------------------
// Edit shows on the newest draft while Confirm (or Start) is offered; the box keeps its text
// whatever the server answers, until it is saved.

const DRAFT_PHASES = {human_review: ["distilling", "human_review"], spec_building: ["spec_building"]};

function refreshEdit() {
  // Only the current phase's newest draft: earlier phases' drafts stay in the thread, locked.
  const drafts = document.querySelectorAll("#messages .message.draft");
  const mine = DRAFT_PHASES[phaseNow()] || [];
  const open = !!document.querySelector('#actions [data-action="confirm"], #actions [data-action="start"]');
  drafts.forEach((article, i) => {
    const button = article.querySelector("button.edit-draft");
    const current = i === drafts.length - 1 && mine.includes(article.dataset.phase);
    if (button) button.hidden = !(open && current);
  });
}

async function openEditor() {
  const existing = document.querySelector(".draft-editor textarea");
  if (existing) { existing.focus(); return; }
  let draft;
  try {
    const response = await fetch("/projects/" + project + "/draft");
    draft = await response.json();
    if (!response.ok) throw new Error(draft.error || ("HTTP " + response.status));
  } catch (error) {
    say(error.message, "error");
    return;
  }
  const article = document.querySelector('.message[data-index="' + draft.index + '"]');
  const box = document.createElement("div");
  box.className = "draft-editor";
  const label = document.createElement("label");
  label.textContent = "Edit the " + draft.kind + " (Markdown; keep its sections)";
  const text = document.createElement("textarea");
  text.id = "draft-text";
  text.rows = 18;
  text.value = draft.text;
  label.append(text);
  const row = document.createElement("div");
  row.className = "draft-buttons";
  const feedback = document.createElement("p");
  feedback.className = "draft-feedback";
  feedback.setAttribute("role", "status");
  const buttons = [["Save and confirm", true, "primary"], ["Save", false, ""]].map(([name, confirm, kind]) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = name;
    button.className = "action " + kind;
    button.addEventListener("click", () => saveEdit(box, text, draft.version, confirm, feedback));
    return button;
  });
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.addEventListener("click", () => box.remove());
  row.append(...buttons, cancel);
  box.append(label, row, feedback);
  (article || $("messages").lastElementChild).after(box);
  text.focus();
}

async function saveEdit(box, text, version, confirm, feedback) {
  for (const b of box.querySelectorAll("button")) b.disabled = true;
  feedback.textContent = "Saving…";
  feedback.className = "draft-feedback";
  try {
    const result = await post("/projects/" + project + "/draft", {text: text.value, version: version, confirm: confirm});
    box.remove();
    say(result.note, "", true);
    toNewest();
  } catch (error) {
    feedback.textContent = error.message.replace(/[.\s]*$/, ".") + " Your text is kept here.";
    feedback.className = "draft-feedback error";
  } finally {
    for (const b of box.querySelectorAll("button")) b.disabled = false;
  }
}

function defaultButton() {
  return document.querySelector('#actions [data-action="send"], #actions [data-action="provide_input"]');
}

function shortcutButton() {
  // Ctrl+Enter (or Cmd+Enter): the step's main action, as its button shows (Distill, Confirm…).
  return document.querySelector("#actions [data-shortcut]");
}

async function upload(files) {
  for (const file of files) {
    say("Adding " + file.name + "…");
    try {
      const result = await post("/projects/" + project + "/files", file, {"X-File-Name": encodeURIComponent(file.name)});
      say(result.note);
    } catch (error) {
      say(file.name + ": " + error.message, "error");
    }
  }
}

function setUpThread() {
  setUpPanes();
  const message = $("message");
  message.dataset.placeholder = message.placeholder;
  phaseShown = phaseNow();
  message.addEventListener("input", refreshButtons);
  message.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    if (event.ctrlKey || event.metaKey) {
      const main = shortcutButton();
      if (main && !main.disabled) act(main);
      return;
    }
    const button = defaultButton();
    if (button && message.value.trim()) act(button);
  });
  $("actions").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (button) act(button);
  });
  $("composer").addEventListener("submit", (event) => event.preventDefault());
  $("budget-set").addEventListener("click", async () => {
    const number = (id) => ($(id).value.trim() === "" ? null : Number($(id).value));
    const usd = number("budget-usd"), tokens = number("budget-tokens");
    if (usd === null && tokens === null) { say("Give a budget in dollars or tokens.", "error"); return; }
    try {
      const result = await post("/projects/" + project + "/budget", {usd, tokens});
      say(result.note, "", true);
    } catch (error) { say(error.message, "error"); }
  });
  $("attach").addEventListener("change", (event) => upload(event.target.files));
  $("attach-button").addEventListener("click", () => $("attach").click());
  $("new-messages").addEventListener("click", () => { toNewest(); message.focus(); });
  window.addEventListener("scroll", () => { if (atNewest()) $("new-messages").hidden = true; }, {passive: true});
  window.addEventListener("resize", () => { if (atNewest()) toNewest(); });
  $("messages").addEventListener("click", (event) => {
    if (event.target.closest("button.edit-draft")) openEditor();
  });
  $("pane-head").addEventListener("click", (event) => {
    if (!event.target.closest("button[data-revise]")) return;
    // Revise takes a change request: the composer is where it is written.
    openTab("conversation", false);
    message.placeholder = "What should change? Write it, then press Revise.";
    message.focus();
    toNewest();
  });
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("#main button[data-archive]");
    if (!button) return;
    button.disabled = true;
    try {
      const result = await post("/projects/" + project + "/" + button.dataset.archive, {});
      say(result.note);
      window.location.reload();
    } catch (error) {
      say(error.message, "error");
      button.disabled = false;
    }
  });
  $("messages").addEventListener("click", async (event) => {
    const button = event.target.closest("button.copy");
    if (!button) return;
    const text = button.closest(".message").querySelector(".body").innerText;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch (_) {
      button.textContent = "Copy failed";
    }
    setTimeout(() => { button.textContent = "Copy"; }, 1500);
  });
  for (const zone of [$("thread"), $("composer")]) {
    zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("dropping"); });
    zone.addEventListener("dragleave", () => zone.classList.remove("dropping"));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("dropping");
      upload(event.dataTransfer.files);
    });
  }
  const earlier = $("earlier");
  if (earlier) earlier.addEventListener("click", async () => {
    const response = await fetch("/projects/" + project + "/messages?before=" + earlier.dataset.before);
    const data = await response.json();
    const height = document.documentElement.scrollHeight;
    $("messages").insertAdjacentHTML("afterbegin", data.html);
    window.scrollBy(0, document.documentElement.scrollHeight - height);  // stay on what was read
    if (data.earlier > 0) {
      earlier.dataset.before = String(data.earlier);
      earlier.textContent = "Show " + data.earlier + " earlier message" + (data.earlier === 1 ? "" : "s");
    } else {
      $("messages").firstElementChild && $("messages").firstElementChild.setAttribute("tabindex", "-1");
      earlier.remove();
    }
  });
  refreshButtons();
  refreshEdit();
  toNewest();
  window.addEventListener("load", toNewest);
  message.focus({preventScroll: true});
}

// --- new project and the prompt editor --------------------------------------------------------

function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function setUpNewProject() {
  $("new-project").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("new-project").requestSubmit();
    }
  });
  $("brain-dump-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) $("brain-dump").value = await file.text();
  });
  $("new-project").addEventListener("submit", async (event) => {
    event.preventDefault();
    const submit = $("new-project").querySelector("button[type=submit]");
    if (submit.disabled) return;  // pressed twice: one project, one run
    submit.disabled = true;
    const files = [];
    for (const file of $("resources").files) files.push({name: file.name, data: await readBase64(file)});
    say("Creating the project…");
    try {
      const result = await post("/projects", {
        brain_dump: $("brain-dump").value,
        agent: $("agent").value,
        deliverable_type: $("deliverable-type").value,
        budget_usd: $("budget-usd").value ? Number($("budget-usd").value) : null,
        files: files,
      });
      window.location.href = result.url;
    } catch (error) {
      say(error.message, "error");
      submit.disabled = false;
    }
  });
}

function setUpPromptEditor() {
  const name = body.dataset.prompt;
  $("prompt-editor").addEventListener("submit", async (event) => {
    event.preventDefault();
    try { say((await post("/settings/prompts/" + name, {text: $("prompt-text").value})).note); }
    catch (error) { say(error.message, "error"); }
  });
  const reset = $("prompt-reset");
  if (reset) reset.addEventListener("click", async () => {
    try { say((await post("/settings/prompts/" + name + "/reset", {})).note); window.location.reload(); }
    catch (error) { say(error.message, "error"); }
  });
}

function setUpMenu() {
  // On a narrow screen the sidebar is a menu this button opens and closes.
  const toggle = $("menu-toggle");
  toggle.addEventListener("click", () => {
    const open = !body.classList.contains("menu-open");
    body.classList.toggle("menu-open", open);
    toggle.setAttribute("aria-expanded", String(open));
    if (open) $("sidebar").querySelector("a").focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && body.classList.contains("menu-open")) {
      body.classList.remove("menu-open");
      toggle.setAttribute("aria-expanded", "false");
      toggle.focus();
    }
  });
}

setUpMenu();
markOpenProject();
const setUp = {thread: setUpThread, new: setUpNewProject, prompt: setUpPromptEditor};
if (setUp[body.dataset.page]) setUp[body.dataset.page]();
connect();

// --- history: Restore this version ------------------------------------------------------------
// The server restores (a new commit) and says where the project is; the page goes to its thread.

document.querySelectorAll("[data-restore]").forEach(function (button) {
  button.addEventListener("click", async function () {
    const name = button.dataset.restore, where = button.dataset.project;
    if (!window.confirm("Restore " + name + "? The files go back to that version with a new commit; the history is kept.")) return;
    button.disabled = true;
    try {
      const keep = document.getElementById("keep-edits");
      const data = await post("/projects/" + where + "/rollback", {to: name, keep_edits: !!(keep && keep.checked)});
      say(data.note, "ok");
      window.setTimeout(function () { window.location.href = "/projects/" + where; }, 800);
    } catch (error) {
      say(error.message, "error");
      button.disabled = false;
    }
  });
});
