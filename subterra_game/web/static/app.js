// The page: the lobby (new table, links, tables here) and the table (board, team, what happened, actions).
// A Sub Terra table draws with board.js and the panels below; an In the Cave table with itc_board.js (ItcPage).
// Everything the server says is shown with textContent: names typed by people never become markup.
"use strict";

const $ = (id) => document.getElementById(id);
let OPTIONS = null;   // /api/options: presets, bots, colours
let VIEW = null;      // the latest state from the server
let WS = null;
let SENT = -1;        // the decision count our last action was sent on (no double clicks)
const FATAL = ["no_table", "bad_table_id"];   // reconnecting would not help

const {node, rgb} = Svg;

function showError(message, code) {
  const e = $("error");
  e.textContent = message;
  e.dataset.code = code || "";
  e.hidden = !message;
}

// ------------------------------------------------------------------------------------------ the table
function hearts(hp, max) { return "\u2665".repeat(hp) + "\u2661".repeat(Math.max(0, max - hp)); }

function renderTeam(v) {
  const box = $("team");
  box.textContent = "";
  const tm = v.board.team;
  const tab = node("table", {}, null, box);
  for (const c of v.board.cavers) {
    const tr = node("tr", {class: c.seat === tm.actor ? "acting" : ""}, null, tab);
    node("td", {}, c.seat === tm.actor ? "\u25b6" : "", tr);
    const name = node("td", {class: "caver-name"}, `${c.rank} ${c.caver}`, tr);
    name.style.color = rgb(OPTIONS.palette.cavers[c.rank]);
    const you = c.seat === v.you && c.player !== "you" ? " (you)" : "";
    const here = c.human ? ((v.present || []).includes(c.seat) ? " \u25cf" : " \u25cb") : "";
    const who = node("td", {class: c.human ? "person" : "muted"}, c.player + you + here, tr);
    if (c.human) who.title = (v.present || []).includes(c.seat) ? "at the table now" : "not at the table now";
    node("td", {class: "hp"}, c.dead ? "devoured" : `${hearts(c.hp, c.max)} ${c.hp}/${c.max}`, tr);
    const flags = [];
    if (!c.dead && c.hp === 0) flags.push("knocked out");
    if (c.under) flags.push("under water");
    if (c.hidden) flags.push("hidden");
    if (c.on_exit) flags.push("ON EXIT");
    if (c.bombs) flags.push(`${c.bombs} bomb card${c.bombs > 1 ? "s" : ""}`);
    if (c.samples) flags.push(`${c.samples} biosample${c.samples > 1 ? "s" : ""}`);
    if (c.items && c.items.length) flags.push(c.items.join(", "));
    node("td", {class: c.on_exit ? "on-exit" : "flags"}, flags.join(", "), tr);
    const intent = (v.intents || {})[String(c.seat)];
    if (intent && !c.human && !v.over) {   // the bot's plan, in its own words
      const it = node("tr", {class: "intent-row"}, null, tab);
      node("td", {}, "", it);
      node("td", {colspan: 4, class: "intent", "data-seat": c.seat}, `\u203a ${intent}`, it);
    }
  }
  const p = node("p", {}, null, box);
  p.textContent = `round ${tm.round} (max ${tm.max_rounds})` + (tm.actor >= 0 ? ` · AP ${tm.ap} · exert ` +
    (tm.exerted ? "used" : "available") : "") + ` · hazard cards left ${tm.cards_left} · tiles left ` +
    `${tm.tiles_left} · ropes ${tm.ropes_left} · horrors ${tm.horrors}` + (tm.leapers ? ` · leapers ${tm.leapers}` : "") +
    ` · last hazard ${tm.last_hazard || "-"}`;
  if (tm.status.length) node("p", {class: "muted"}, tm.status.join(" · "), box);
  for (const w of tm.warnings) node("p", {class: "warning"}, "\u26a0 " + w, box);
  if (tm.pending) node("p", {class: "pending"}, "now: " + tm.pending, box);
}

function renderEvents(v) {
  const box = $("events");
  box.textContent = "";
  node("h3", {}, "what happened", box);
  const shown = v.events.slice(-14);
  // numbered as the table's own lines (the 40th event stays 40th), not from 1 for the last few
  const first = (v.events_first || 1) + v.events.length - shown.length;
  const ol = node("ol", {start: first}, null, box);
  for (const e of shown) node("li", {class: `ev-${e.kind}`}, e.text, ol);
  box.scrollTop = box.scrollHeight;
}

function actorOf(v) { return v.actor !== undefined ? v.actor : v.board.team.actor; }

function myTurn(v) {
  return !v.over && v.you !== null && v.you !== undefined && actorOf(v) === v.you;
}

function act(id) {
  if (!VIEW || !myTurn(VIEW) || SENT === VIEW.decisions) return;
  SENT = VIEW.decisions;
  closePopover();
  WS.send(JSON.stringify({type: "act", action: id, step: VIEW.decisions}));
}

function closePopover() { $("popover").hidden = true; }

// A cell with several actions (move or explore; reveal or explore) asks which one, next to the click.
function pick(acts, ev) {
  if (acts.length === 1) { act(acts[0].id); return; }
  const pop = $("popover");
  pop.textContent = "";
  for (const a of acts) {
    const b = node("button", {type: "button", class: "action", "data-action": a.id},
      `${a.name} (${a.cost !== undefined ? a.cost : a.note || "-"})`, pop);
    b.addEventListener("click", () => act(a.id));
  }
  const w = $("board-wrap"), wrap = w.getBoundingClientRect();   // the frame may be scrolled (zoom)
  pop.style.left = `${Math.max(0, ev.clientX - wrap.left + w.scrollLeft)}px`;
  pop.style.top = `${Math.max(0, ev.clientY - wrap.top + w.scrollTop)}px`;
  pop.hidden = false;
}

function renderActions(v) {
  const box = $("actions");
  box.textContent = "";
  const tm = v.board.team;
  const turn = $("turn");
  if (v.over) { turn.textContent = ""; return; }
  const actor = v.board.cavers[tm.actor];
  if (!myTurn(v)) {
    turn.textContent = actor ? `${actor.caver}'s turn (${actor.player})` + (actor.human ? "" : ": thinking\u2026") : "";
    turn.className = "waiting";
    return;
  }
  turn.textContent = `Your move as the ${actor.caver.toUpperCase()} · ${tm.ap} AP left`;
  turn.className = "yours";
  v.board.legal.forEach((a, i) => {
    const b = node("button", {type: "button", class: "action", "data-action": a.id, "data-name": a.name,
      title: a.detail || a.name}, null, box);
    node("kbd", {}, i < 9 ? String(i + 1) : "", b);
    node("span", {class: "name"}, ` ${a.name}`, b);
    node("span", {class: "cost"}, ` ${a.cost}`, b);
    if (a.detail) node("span", {class: "detail"}, ` ${a.detail}`, b);
    b.addEventListener("click", () => act(a.id));
  });
}

function renderResult(v) {
  const box = $("result");
  if (!v.over) { box.hidden = true; return; }
  const tm = v.board.team;
  const name = tm.result || (v.truncated ? "unfinished (round limit)" : "?");
  box.hidden = false;
  box.dataset.result = tm.result || "";
  box.dataset.escaped = tm.escaped;
  box.dataset.round = tm.round;
  box.dataset.decisions = v.decisions;
  box.className = `medal-${tm.result || "none"}`;
  box.textContent = `Result: ${name.toUpperCase()} · ${tm.escaped} escaped · round ${tm.round} · ` +
    `${v.decisions} decisions`;
}

function renderInvites(v) {
  const ul = $("invites");
  ul.textContent = "";
  const links = JSON.parse(localStorage.getItem(`subterra:${v.table}:links`) || "[]");
  for (const s of links) {
    if (s.seat === v.you) continue;
    const li = node("li", {}, `seat ${s.seat} (${s.caver || s.team}): `, ul);
    node("a", {href: s.link, class: "seat-link"}, "link", li);
    Social.copyButton(li, location.origin + s.link);
  }
}

function render(v) {
  VIEW = v;
  closePopover();
  if (SENT !== v.decisions) SENT = -1;
  $("title").textContent = `${v.title.replace(/^In the Cave · /, "")} · table ${v.table}`;   // the brand says it
  $("game").dataset.decisions = v.decisions;
  $("game").dataset.over = v.over;
  gameLook(v.game);
  if (v.game === "itc") {
    ItcPage.render(v, OPTIONS.itc.palette, {mine: myTurn(v), onPick: pick, act});
  } else {
    Board.draw($("board"), v.board, OPTIONS.palette, {mine: myTurn(v), onPick: pick});
    renderResult(v);
    renderActions(v);
    renderTeam(v);
    Social.legend(OPTIONS.palette);
  }
  Zoom.drawn(v.game === "itc" ? {cavers: [], team: {}} : v.board);
  Social.turnSignal(myTurn(v), v.game === "itc" ? "In the Cave" : "Sub Terra");
  Social.tools(v, (m) => WS.send(JSON.stringify(m)), myTurn(v));
  renderEvents(v);
  renderInvites(v);
  $("history-link").href = `/replay/${v.record}`;
  const d = $("game-delay");
  if (document.activeElement !== d) d.value = v.delay;
  d.disabled = v.you === null || v.you === undefined;
  $("record-link").href = `/api/records/${v.record}`;
}

// The page's name, its help and its board's look follow the game at the table.
function gameLook(game) {
  const itc = game === "itc";
  $("brand").textContent = itc ? "In the Cave" : "Sub Terra";
  document.title = itc ? "In the Cave" : "Sub Terra";
  $("help-subterra").hidden = itc;
  $("help-itc").hidden = !itc;
  $("game").dataset.game = game || "subterra";
}

function connect(tableId, seat, token) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  WS = new WebSocket(`${proto}://${location.host}/ws/${tableId}`);
  WS.onopen = () => {
    $("conn").textContent = seat === null ? "watching" : `seat ${seat}`;
    WS.send(JSON.stringify({type: "join", seat, token}));
  };
  WS.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (Social.onMessage(msg, VIEW, render)) return;
    if (msg.type === "state") {
      if (!WS.keepError) showError("");   // a refused seat stays said while watching
      render(msg);
    }
    else if (msg.type === "error") {
      SENT = -1;
      showError(msg.message, msg.code);
      if (FATAL.includes(msg.code)) WS.fatal = true;
      if ((msg.code === "bad_token" || msg.code === "bad_seat") && seat !== null) {   // watch instead
        localStorage.removeItem(`subterra:${tableId}:seat${seat}`);
        seat = null;
        token = null;
        WS.keepError = true;
        $("conn").textContent = "watching";
        WS.send(JSON.stringify({type: "join", seat: null}));
      }
    }
  };
  WS.onclose = () => {   // a dropped connection: come back to the same seat (not to a table that is not there)
    if (WS.fatal) { $("conn").textContent = "not connected"; return; }
    $("conn").textContent = "reconnecting\u2026";
    setTimeout(() => connect(tableId, seat, token), 1500);
  };
}

function openTable(tableId) {
  $("game").hidden = false;
  const h = new URLSearchParams(location.hash.slice(1));
  let seat = h.has("seat") ? Number(h.get("seat")) : null;
  let token = h.get("token");
  if (seat !== null && token) {
    localStorage.setItem(`subterra:${tableId}:seat${seat}`, token);
  } else {    // no link: this browser's own seat at this table, if it has one
    for (let i = 0; i < 6 && seat === null; i++) {
      const t = localStorage.getItem(`subterra:${tableId}:seat${i}`);
      if (t) { seat = i; token = t; }
    }
  }
  history.replaceState(null, "", `/table/${tableId}`);   // the token leaves the address bar
  $("game-delay").addEventListener("change", (e) => {
    WS.send(JSON.stringify({type: "delay", seconds: Number(e.target.value)}));
  });
  connect(tableId, seat, token || null);
}

// ------------------------------------------------------------------------------------------ replay
let REPLAY = null;   // {data: the server's steps, i: the step shown, timer}

function showStep(i) {
  const d = REPLAY.data, n = d.steps.length - 1;
  REPLAY.i = Math.max(0, Math.min(n, i));
  const step = d.steps[REPLAY.i];
  const events = [];
  for (let k = Math.max(1, REPLAY.i - 4); k <= REPLAY.i; k++) events.push(...d.steps[k].events);
  const v = {game: d.game, board: step.board, events, decisions: REPLAY.i, over: REPLAY.i === n && d.finished,
    truncated: false, you: null, actor: -1};
  $("game").dataset.decisions = REPLAY.i;
  gameLook(d.game);
  if (d.game === "itc") ItcPage.render(v, OPTIONS.itc.palette, {mine: false});
  else {
    Board.draw($("board"), step.board, OPTIONS.palette, {mine: false});
    Zoom.drawn(step.board);
    renderResult(v);
    renderTeam(v);
  }
  renderEvents(v);
  $("rp-slider").value = REPLAY.i;
  $("rp-pos").textContent = `step ${REPLAY.i} / ${n}`;
  $("turn").textContent = "";
}

function playPause() {
  if (REPLAY.timer) { clearInterval(REPLAY.timer); REPLAY.timer = null; $("rp-play").textContent = "play"; return; }
  $("rp-play").textContent = "pause";
  REPLAY.timer = setInterval(() => {
    if (REPLAY.i >= REPLAY.data.steps.length - 1) playPause();
    else showStep(REPLAY.i + 1);
  }, 500);
}

// source: {name: "ID.json"} a table's record here, or {text: "..."} a record file the person picked
async function openReplay(source) {
  const r = source.name ? await fetch(`/api/replay/${source.name}`) :
    await fetch("/api/replay", {method: "POST", headers: {"Content-Type": "application/json"}, body: source.text});
  const data = await r.json();
  if (!r.ok) { showError(data.message, data.code); return; }
  showError("");
  REPLAY = {data, i: 0, timer: null};
  $("lobby").hidden = true;
  $("game").hidden = false;
  $("replay-bar").hidden = false;
  $("actions").hidden = true;
  $("controls").hidden = true;
  $("title").textContent = `${data.title} · ${data.decisions} decisions · ${data.result || "unfinished"}`;
  $("rp-slider").max = data.steps.length - 1;
  $("rp-slider").addEventListener("input", (e) => showStep(Number(e.target.value)));
  $("rp-prev").addEventListener("click", () => showStep(REPLAY.i - 1));
  $("rp-next").addEventListener("click", () => showStep(REPLAY.i + 1));
  $("rp-play").addEventListener("click", playPause);
  showStep(0);
}

// ------------------------------------------------------------------------------------------ keys
const ARROW_DIR = {ArrowUp: "N", ArrowRight: "E", ArrowDown: "S", ArrowLeft: "W"};
const PREFER = ["move", "run step", "swim", "squeeze", "explore"];

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.key === "?") { $("help").hidden = !$("help").hidden; return; }
  if (e.key === "+" || e.key === "=") { Zoom.step(1); return; }
  if (e.key === "-") { Zoom.step(-1); return; }
  if (e.key === "Escape") { $("help").hidden = true; closePopover(); return; }
  if (REPLAY) {
    if (e.key === "ArrowLeft") showStep(REPLAY.i - 1);
    else if (e.key === "ArrowRight") showStep(REPLAY.i + 1);
    else if (e.key === " ") { e.preventDefault(); playPause(); }
    return;
  }
  if (!VIEW || !myTurn(VIEW)) return;
  if (e.key === "h" && VIEW.game === "subterra") { WS.send(JSON.stringify({type: "hint"})); return; }
  const legal = VIEW.board.legal;
  let a;
  if (/^[1-9]$/.test(e.key)) a = legal[Number(e.key) - 1];
  else if (VIEW.game === "itc") a = ItcPage.keyAction(e.key, legal);
  else if (e.key === "e") a = legal.find((x) => x.name === "end turn");
  else if (e.key === "x") a = legal.find((x) => x.name === "exert");
  else if (ARROW_DIR[e.key]) {
    for (const p of PREFER) { a = a || legal.find((x) => x.name === `${p} ${ARROW_DIR[e.key]}`); }
  }
  if (a) { e.preventDefault(); act(a.id); }
});

// ------------------------------------------------------------------------------------------ start
(async () => {
  OPTIONS = await (await fetch("/api/options")).json();
  Zoom.init();
  Social.init();
  $("help-button").addEventListener("click", () => { $("help").hidden = !$("help").hidden; });
  $("help").addEventListener("click", () => { $("help").hidden = true; });
  const m = location.pathname.match(/^\/table\/([0-9a-f]{12})$/);
  if (m) { openTable(m[1]); return; }
  const rp = location.pathname.match(/^\/replay\/([0-9a-f]{12}\.json)$/);
  if (rp) { openReplay({name: rp[1]}); return; }
  $("lobby").hidden = false;
  for (const [k, name] of Object.entries(OPTIONS.games)) node("option", {value: k}, name, $("game-kind"));
  for (const d of OPTIONS.difficulties) node("option", {value: d}, d, $("difficulty"));
  $("difficulty").value = "normal";
  $("num-cavers").addEventListener("change", seatRows);
  $("num-teams").addEventListener("change", seatRows);
  $("game-kind").addEventListener("change", gameForm);
  $("preset").addEventListener("change", presetTeams);
  gameForm();
  $("new-table").addEventListener("submit", createTable);
  $("record-file").addEventListener("change", async (e) => {
    const f = e.target.files[0];
    if (f) openReplay({text: await f.text()});
  });
  listTables();
})();
