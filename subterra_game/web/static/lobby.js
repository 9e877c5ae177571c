// The lobby: the new-table form (game, cave or preset, seats with people's names, bots), the links to the seats
// (each with a copy button) and the tables on this server. Loaded before app.js, whose globals (OPTIONS, $,
// showError) it uses when called.
"use strict";

const isItc = () => $("game-kind").value === "itc";

function seatRows() {
  const itc = isItc();
  const n = Number(itc ? $("num-teams").value : $("num-cavers").value);
  const bots = itc ? OPTIONS.itc.bots : OPTIONS.bots;
  const box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.querySelectorAll("label").forEach((l) => l.remove());
  for (let i = 0; i < n; i++) {
    const l = node("label", {}, itc ? `Team ${i} ` : `Seat ${i} `, box);
    const s = node("select", {id: `seat-${i}`, "data-seat": i}, null, l);
    for (const k of ["human", ...bots]) node("option", {value: k}, k === "human" ? "person" : k + " bot", s);
    s.value = ["human", ...bots].includes(old[i]) ? old[i] :
      (i === 0 ? "human" : (bots.includes("heuristic") ? "heuristic" : bots[0]));
    // a person's name (optional): letters, digits, spaces, . ' - up to 24 (the server checks and says)
    const name = node("input", {id: `name-${i}`, class: "seat-name", placeholder: "name", maxlength: 24,
      "aria-label": `name at seat ${i}`}, null, l);
    const show = () => { name.hidden = s.value !== "human"; };
    s.addEventListener("change", show);
    show();
  }
}

// The form for the game chosen: Sub Terra's caves, cavers and difficulty, or In the Cave's presets and teams.
function gameForm() {
  const itc = isItc();
  document.querySelectorAll(".st-only").forEach((e) => { e.hidden = itc; });
  document.querySelectorAll(".itc-only").forEach((e) => { e.hidden = !itc; });
  const sel = $("preset");
  sel.textContent = "";
  for (const p of itc ? OPTIONS.itc.presets : OPTIONS.presets) node("option", {value: p}, p, sel);
  seatRows();
}

function presetTeams() {   // In the Cave's presets two .. five name their number of teams
  const n = {two: 2, three: 3, four: 4, five: 5}[$("preset").value];
  if (isItc() && n) { $("num-teams").value = String(n); seatRows(); }
}

async function listTables() {
  const r = await fetch("/api/tables");
  const {tables} = await r.json();
  const ul = $("table-list");
  ul.textContent = "";
  if (!tables.length) node("li", {class: "muted"}, "none yet", ul);
  for (const t of tables) {
    const li = node("li", {}, null, ul);
    node("a", {href: `/table/${t.table}`}, `${t.table}`, li);
    if (t.game === "itc") node("span", {class: "game-tag"}, " In the Cave", li);
    node("span", {class: "muted"}, ` ${t.title} · ${t.decisions} decisions${t.over ? " · over" : ""} · `, li);
    node("a", {href: `/replay/${t.table}.json`, class: "replay-link"}, "replay", li);
  }
}

async function createTable(ev) {
  ev.preventDefault();
  const seats = [...$("seats").querySelectorAll("select")].map((s, i) => {
    const name = ($(`name-${i}`) || {}).value;
    return s.value === "human" && name && name.trim() ? `human:${name.trim()}` : s.value;
  });
  const body = isItc() ?
    {game: "itc", preset: $("preset").value, num_players: seats.length, seats, delay: Number($("delay").value || 0)} :
    {preset: $("preset").value, num_cavers: Number($("num-cavers").value), seats,
      difficulty: $("difficulty").value, delay: Number($("delay").value || 0)};
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  $("create").disabled = true;
  try {
    const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body)});
    const res = await r.json();
    if (!r.ok) { showError(res.message, res.code); return; }
    showError("");
    const links = res.seats.filter((s) => s.link);
    localStorage.setItem(`subterra:${res.table}:links`, JSON.stringify(links));
    for (const s of links) {   // this browser may come back to any of them
      localStorage.setItem(`subterra:${res.table}:seat${s.seat}`, s.token);
    }
    const go = links.length ? links[0].link : res.link;
    if (links.length > 1) {    // several people: show the links first
      $("links").hidden = false;
      const ul = $("link-list");
      ul.textContent = "";
      for (const s of links) {
        const li = node("li", {}, `seat ${s.seat} (${s.caver || s.team}, ${s.player}): `, ul);
        node("a", {href: s.link, class: "seat-link"}, location.origin + s.link, li);
        Social.copyButton(li, location.origin + s.link);
      }
      listTables();
    } else location.assign(go);
  } finally {
    $("create").disabled = false;
  }
}

