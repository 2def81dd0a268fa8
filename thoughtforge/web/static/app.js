// The workbench's browser side: sends what the person does, and puts what the server renders in
// place. Which actions exist, what they mean and how things look are the server's; this file only
// moves HTML fragments and keeps typed text until the server has it.
"use strict";

const body = document.body;
let token = document.querySelector('meta[name="tf-token"]').content;
const project = body.dataset.project || "";
let count = Number(body.dataset.count || 0);

function $(id) { return document.getElementById(id); }

function say(text, kind) {
  const feedback = $("feedback");
  if (!feedback) return;
  feedback.textContent = text;
  feedback.className = kind || "";
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
    const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 200;
    messages.insertAdjacentHTML("beforeend", data.html);
    count = Math.max(count, data.index + 1);
    if (nearBottom) $("work").scrollIntoView({block: "end"});
  });
  source.addEventListener("state", (event) => {
    const data = JSON.parse(event.data);
    $("project-header").innerHTML = data.header;
    $("actions").innerHTML = data.actions;
    $("work").innerHTML = data.work;
    refreshButtons();
  });
  source.addEventListener("panel", (event) => { $("panel").innerHTML = JSON.parse(event.data).html; });
  source.addEventListener("inbox", (event) => { $("sidebar-list").innerHTML = JSON.parse(event.data).html; });
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
  try {
    const result = await post("/projects/" + project + "/reply", {action: action, message: text});
    if (text && message.value === text) message.value = "";
    say(result.note);
  } catch (error) {
    say(error.message, "error");
  } finally {
    for (const b of document.querySelectorAll("#actions button")) b.disabled = false;
    refreshButtons();
  }
}

function defaultButton() {
  return document.querySelector('#actions [data-action="send"], #actions [data-action="provide_input"]');
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
  const message = $("message");
  message.addEventListener("input", refreshButtons);
  message.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    const button = defaultButton();
    if (button && message.value.trim()) act(button);
  });
  $("actions").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (button) act(button);
  });
  $("composer").addEventListener("submit", (event) => event.preventDefault());
  $("attach").addEventListener("change", (event) => upload(event.target.files));
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
    $("messages").insertAdjacentHTML("afterbegin", data.html);
    if (data.earlier > 0) earlier.dataset.before = String(data.earlier); else earlier.remove();
  });
  refreshButtons();
  $("work").scrollIntoView({block: "end"});
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
  $("brain-dump-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) $("brain-dump").value = await file.text();
  });
  $("new-project").addEventListener("submit", async (event) => {
    event.preventDefault();
    const files = [];
    for (const file of $("resources").files) files.push({name: file.name, data: await readBase64(file)});
    say("Creating the project…");
    try {
      const result = await post("/projects", {
        brain_dump: $("brain-dump").value,
        agent: $("agent").value,
        deliverable_type: $("deliverable-type").value,
        files: files,
      });
      window.location.href = result.url;
    } catch (error) {
      say(error.message, "error");
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

const setUp = {thread: setUpThread, new: setUpNewProject, prompt: setUpPromptEditor};
if (setUp[body.dataset.page]) setUp[body.dataset.page]();
connect();
