// The table's people and helpers beside the board: who is here, the your-turn signal (title, optional sound), a
// hint for your seat, "skip to my turn", a rematch, a seat handed over to a bot (the creator decides), the
// game's history replayed, copy-link buttons, the tile legend. Text from the server goes in as textContent only.
"use strict";

const Social = (() => {
  const {node} = Svg;
  let wasMine = false;
  let hint = null;     // the latest hint: {step, action, name, why, bot}
  let baseTitle = "Sub Terra";

  // ---------------------------------------------------------------- your turn
  function beep() {
    try {
      const ctx = new (window.AudioContext || window.webkitAudioContext)();
      const o = ctx.createOscillator(), g = ctx.createGain();
      o.frequency.value = 660;
      g.gain.value = 0.08;
      o.connect(g).connect(ctx.destination);
      o.start();
      o.stop(ctx.currentTime + 0.15);
    } catch (e) { /* no audio here: the title still says it */ }
  }

  // The tab's title says "your turn" (seen from another tab); a short tone too when the person asked for it.
  function turnSignal(mine, brand) {
    baseTitle = brand;
    document.title = mine ? `\u25b6 Your turn \u00b7 ${brand}` : brand;
    document.getElementById("game").dataset.yourTurn = mine ? "1" : "0";
    if (mine && !wasMine && localStorage.getItem("subterra:sound") === "1") beep();
    wasMine = mine;
  }

  // ---------------------------------------------------------------- copy a link
  function copyButton(parent, url) {
    const b = node("button", {type: "button", class: "copy"}, "copy", parent);
    b.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(url);
        b.textContent = "copied";
      } catch (e) {   // no clipboard here (an insecure page, a refusal): the link is selectable beside it
        b.textContent = "select the link to copy";
      }
    });
    return b;
  }

  // ---------------------------------------------------------------- the legend
  function legend(pal) {
    const box = document.getElementById("legend-list");
    if (!box || box.childElementCount) return;
    for (const [type, code] of Object.entries(pal.codes)) {
      const li = node("li", {title: pal.rules[type] || type, "data-type": type}, null, box);
      const sw = node("span", {class: "swatch"}, code, li);
      sw.style.background = Svg.rgb(pal.types[type]);
      node("span", {}, ` ${type}: ${pal.rules[type] || ""}`, li);
    }
  }

  // ---------------------------------------------------------------- tools under the turn line
  function tools(v, send, mine) {
    const box = document.getElementById("tools");
    box.textContent = "";
    const seated = v.you !== null && v.you !== undefined;
    if (mine && v.game === "subterra") {
      const b = node("button", {type: "button", id: "hint-button", title: "what the strongest bot would do here, and why"},
        "hint", box);
      b.addEventListener("click", () => { b.disabled = true; send({type: "hint"}); });
    }
    const botTurn = !v.over && v.seats[v.actor] && !v.seats[v.actor].human;
    if (seated && botTurn && !v.skipping) {
      const b = node("button", {type: "button", id: "skip-button", title: "the bots play on without the delay"},
        "skip to my turn", box);
      b.addEventListener("click", () => send({type: "skip"}));
    }
    if (v.skipping) node("span", {class: "muted"}, "skipping to a person's turn\u2026", box);
    if (v.over && seated) {
      const b = node("button", {type: "button", id: "rematch-button"}, v.next ? "rematch started" : "rematch", box);
      b.addEventListener("click", () => send({type: "rematch"}));
    }
    if (v.next) node("a", {href: `/table/${v.next}`, id: "next-link"}, " the rematch's table", box);
    // the creator may hand the seat of a person who is not here to the heuristic
    if (!v.over && seated && v.you === v.creator && v.game === "subterra") {
      for (const s of v.seats) {
        if (!s.human || v.present.includes(s.seat)) continue;
        const b = node("button", {type: "button", class: "handover", "data-seat": s.seat},
          `give seat ${s.seat} (${s.player}, away) to a bot`, box);
        b.addEventListener("click", () => {
          if (confirm(`Seat ${s.seat} (${s.player}) is not at the table. The heuristic bot plays it from now on?`)) {
            send({type: "handover", seat: s.seat});
          }
        });
      }
    }
    renderHint(v);
  }

  function renderHint(v) {
    const box = document.getElementById("hint");
    document.querySelectorAll("button.action.hinted").forEach((b) => b.classList.remove("hinted"));
    if (!hint || hint.step !== v.decisions) { box.hidden = true; hint = null; return; }
    box.hidden = false;
    box.textContent = `Hint (${hint.bot} bot): ${hint.name} \u2014 ${hint.why}`;
    const b = document.querySelector(`#actions button.action[data-action="${hint.action}"]`);
    if (b) b.classList.add("hinted");
  }

  // ---------------------------------------------------------------- messages beyond the state
  function onMessage(msg, view, rerender) {
    if (msg.type === "hint") {
      hint = msg;
      if (view) renderHint(view);
      return true;
    }
    if (msg.type === "presence") {
      if (view) { view.present = msg.present; view.watchers = msg.watchers; rerender(view); }
      return true;
    }
    if (msg.type === "rematch") {   // our seat at the new table: kept in this browser, offered as a link
      localStorage.setItem(`subterra:${msg.table}:seat${msg.seat}`, new URLSearchParams(msg.link.split("#")[1]).get("token"));
      const box = document.getElementById("tools");
      const a = node("a", {href: `/table/${msg.table}`, id: "rematch-link"}, `your seat ${msg.seat} at the rematch`, box);
      a.classList.add("yours");
      return true;
    }
    return false;
  }

  // The sound checkbox keeps its choice in this browser.
  function init() {
    const s = document.getElementById("sound");
    s.checked = localStorage.getItem("subterra:sound") === "1";
    s.addEventListener("change", () => localStorage.setItem("subterra:sound", s.checked ? "1" : "0"));
  }

  return {turnSignal, copyButton, legend, tools, onMessage, init, title: () => baseTitle};
})();
