// In the Cave at the table: the shared cave as SVG (tiles in their kind's colour, darker by depth, with passages,
// tokens, squeeze difficulty, ropes and drops, unexplored exits, camps and pawns in team colours) and the side
// panels (the turn and stacks, every team's public inventory and VP, the legal actions, the result).
// Colours and kind symbols come from the server (/api/options: those of subterra itc's pictures and text map).
// Everything the server says is shown with textContent: names typed by people never become markup.
"use strict";

const ItcPage = (() => {
  const {C, DX, DY, rgb, el, node} = Svg;
  const shade = (c, f) => c.map((v) => Math.round(Math.max(0, Math.min(255, v * f))));
  const KIND_WORDS = {home: "home base", board: "starting board", plain: "plain", water: "water", wonder: "wonder",
    squeeze: "squeeze", descent: "descent", boulder: "boulder choke"};

  const walls = (g, x, y, open, s, w) => Svg.walls(g, x, y, open, s, w);

  function tile(g, t, pal) {
    const x = t.x, y = t.y, level = Math.floor(t.depth / 25);
    el("rect", {x: x * C, y: y * C, width: C, height: C, fill: rgb(shade(pal.kinds[t.kind],
      Math.max(0.5, 1 - 0.12 * level))), class: "tile", "data-kind": t.kind}, g);
    walls(g, x, y, t.open, 1, 6);
    let sym = pal.chars[t.kind];
    if (t.kind === "squeeze") sym = (t.token ? "S" : "s") + t.sq;
    el("text", {x: x * C + 7, y: y * C + 19, class: "itc-sym"}, g, sym);
    if (t.depth) el("text", {x: x * C + 7, y: y * C + C - 8, class: "itc-depth"}, g, `${t.depth}m`);
    if (t.token && t.kind !== "squeeze") {   // its token (water, photo) still there
      el("circle", {cx: x * C + C - 15, cy: y * C + 15, r: 7, class: "itc-token"}, g);
      el("text", {x: x * C + C - 15, y: y * C + 19, class: "itc-token-mark", "text-anchor": "middle"}, g, "!");
    }
    el("title", {}, g, `${KIND_WORDS[t.kind]} at ${t.where}` + (t.sq ? `, squeeze difficulty ${t.sq}` : "") +
      (t.token ? ", its token is still there" : "") + (t.rope ? ", roped" : "") + (t.drop ? ", a drop: needs ropes" : ""));
  }

  // A passage between two depths, once per edge (drawn over both tiles): "r" roped, "d" a drop that needs ropes,
  // as the terminal's map marks them.
  function edges(g, tiles, pal) {
    for (const t of tiles) {
      for (const d of [1, 2]) {   // east and south: every edge once (its tiles list it on both sides)
        const roped = t.rope & (1 << d), drop = t.drop & (1 << d);
        if (!roped && !drop) continue;
        const mx = (t.x + 0.5 + 0.5 * DX[d]) * C, my = (t.y + 0.5 + 0.5 * DY[d]) * C;
        const eg = el("g", {class: roped ? "itc-rope" : "itc-drop", "data-x": t.x, "data-y": t.y, "data-side": d}, g);
        el("rect", {x: mx - 8, y: my - 8, width: 16, height: 16, rx: 3}, eg);
        const mark = el("text", {x: mx, y: my + 5, "text-anchor": "middle"}, eg, roped ? "r" : "d");
        if (roped) mark.setAttribute("fill", rgb(pal.rope));
        el("title", {}, eg, roped ? "a roped drop between depths" : "a drop between depths: needs ropes to pass");
      }
    }
  }

  function camps(g, teams, pal) {
    const n = new Map();
    for (const tm of teams) {
      if (tm.camp_x === undefined) continue;
      const k = `${tm.camp_x},${tm.camp_y}`;
      const i = n.get(k) || 0;
      n.set(k, i + 1);
      const cx = (tm.camp_x + 1) * C - 12 - i * 16, by = (tm.camp_y + 1) * C - 6;
      const tg = el("g", {class: "itc-camp", "data-seat": tm.seat}, g);
      el("path", {d: `M${cx - 7} ${by} L${cx} ${by - 13} L${cx + 7} ${by} Z`, fill: rgb(pal.teams[tm.seat])}, tg);
      el("title", {}, tg, `team ${tm.seat}'s camp`);
    }
  }

  function pawns(g, teams, pal, actor) {
    const byCell = new Map();
    for (const tm of teams) {
      const k = `${tm.x},${tm.y}`;
      if (!byCell.has(k)) byCell.set(k, []);
      byCell.get(k).push(tm);
    }
    for (const group of byCell.values()) {
      const cols = group.length === 1 ? 1 : group.length <= 4 ? 2 : 3, size = [26, 21, 15][cols - 1];
      const rows = Math.ceil(group.length / cols);
      group.forEach((tm, i) => {
        const px = (tm.x + 0.5) * C - cols * (size + 3) / 2 + (i % cols) * (size + 3);
        const py = (tm.y + 0.5) * C - rows * (size + 3) / 2 + Math.floor(i / cols) * (size + 3);
        const pg = el("g", {class: "itc-pawn" + (tm.seat === actor ? " acting" : ""), "data-seat": tm.seat}, g);
        el("rect", {x: px, y: py, width: size, height: size, fill: rgb(pal.teams[tm.seat])}, pg);
        el("text", {x: px + size / 2, y: py + size / 2 + 5, class: "itc-seat", "text-anchor": "middle"}, pg,
          String(tm.seat));
        el("title", {}, pg, `team ${tm.seat} (${tm.player}) at ${tm.where}`);
      });
    }
  }

  // The acting person's actions on the board: a clickable outline on each cell a move, dive, crawl or boulder
  // choke points at; the drawn tile's legal turnings as small tiles in the cells where it may go.
  function targets(g, legal, drawn, pal, onPick) {
    Svg.cellTargets(g, legal, onPick);
    const places = new Map();
    for (const a of legal) {
      if (a.x === undefined || a.open === undefined) continue;
      const k = `${a.x},${a.y}`;
      if (!places.has(k)) places.set(k, []);
      places.get(k).push(a);
    }
    for (const [k, acts] of places) {
      const [x, y] = k.split(",").map(Number);
      el("rect", {x: x * C, y: y * C, width: C, height: C, class: "placing"}, g);
      for (const a of acts) {
        const qx = x + 0.5 * (a.rot % 2), qy = y + 0.5 * Math.floor(a.rot / 2);
        const mg = el("g", {class: "rotation", "data-action": a.id, tabindex: 0}, g);
        el("rect", {x: qx * C + 2, y: qy * C + 2, width: C / 2 - 4, height: C / 2 - 4,
          fill: rgb(pal.kinds[drawn ? drawn.kind : "plain"])}, mg);
        walls(mg, qx, qy, a.open, 0.5, 3);
        el("title", {}, mg, `${a.label || a.name}: ${a.note}`);
        mg.addEventListener("click", (ev) => onPick([a], ev));
      }
    }
  }

  function draw(svg, board, pal, opts) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const xs = [0], ys = [0];
    for (const t of board.tiles.concat(board.frontier)) { xs.push(t.x); ys.push(t.y); }
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const pad = 0.15;
    svg.setAttribute("viewBox", `${(x0 - pad) * C} ${(y0 - pad) * C} ${(x1 - x0 + 1 + 2 * pad) * C} ` +
      `${(y1 - y0 + 1 + 2 * pad) * C}`);
    const g = el("g", {}, svg);
    for (const f of board.frontier) {
      el("rect", {x: f.x * C + 4, y: f.y * C + 4, width: C - 8, height: C - 8, class: "frontier"}, g);
      el("text", {x: (f.x + 0.5) * C, y: (f.y + 0.5) * C + 7, class: "itc-exit", "text-anchor": "middle"}, g, "?");
    }
    for (const t of board.tiles) tile(g, t, pal);
    edges(g, board.tiles, pal);
    camps(g, board.teams, pal);
    pawns(g, board.teams, pal, board.turn.actor);
    if (opts.mine) targets(g, board.legal, board.drawn, pal, opts.onPick);
  }

  // ------------------------------------------------------------------------------------------ panels
  function renderTurn(v, opts) {
    const turn = document.getElementById("turn"), box = document.getElementById("actions");
    box.textContent = "";
    const tm = v.board.turn;
    if (v.over || tm.actor < 0) { turn.textContent = ""; return; }
    const who = v.board.teams[tm.actor];
    const ap = tm.packing ? "packing (free)" : `${tm.ap} AP left`;
    if (!opts.mine) {
      turn.textContent = `team ${tm.actor} (${who.player}) to act · ${ap}` + (who.human ? "" : ": thinking\u2026");
      turn.className = "waiting";
      return;
    }
    turn.textContent = `Your move as TEAM ${tm.actor} · ${ap}` + (tm.exhausted ? " · exhausted: crawl only" : "");
    turn.className = "yours";
    v.board.legal.forEach((a, i) => {
      const b = node("button", {type: "button", class: "action", "data-action": a.id, "data-name": a.name,
        title: a.note || a.label || a.name}, null, box);
      node("kbd", {}, i < 9 ? String(i + 1) : "", b);
      node("span", {class: "name"}, ` ${a.label || a.name}`, b);
      if (a.note) node("span", {class: "cost"}, ` ${a.note}`, b);
      b.addEventListener("click", () => opts.act(a.id));
    });
  }

  function renderTeams(v, pal) {
    const box = document.getElementById("team");
    box.textContent = "";
    const tm = v.board.turn;
    for (const line of tm.lines) node("p", {class: "itc-line"}, line, box);
    for (const t of v.board.teams) {
      const card = node("div", {class: "itc-team" + (t.seat === tm.actor ? " acting" : ""), "data-seat": t.seat}, null, box);
      const head = node("div", {class: "itc-head"}, null, card);
      const sw = node("span", {class: "itc-swatch"}, String(t.seat), head);
      sw.style.background = rgb(pal.teams[t.seat]);
      const you = t.seat === v.you ? " (you)" : "";
      node("b", {class: t.human ? "person" : ""}, `team ${t.seat} · ${t.player}${t.player === "you" ? "" : you}`, head);
      node("span", {class: "itc-vp"}, ` VP ${t.vp}`, head);
      if (t.score !== undefined) {
        node("span", {class: t.winner ? "on-exit" : "flags"}, ` · score ${t.score}` + (t.winner ? " WINNER" : "") +
          (t.eliminated ? " (eliminated: not home)" : ""), head);
      }
      node("div", {class: "itc-where"}, `at ${t.where} · tokens: ${t.tokens}`, card);
      node("div", {class: "itc-kit"}, t.backpack === null ? "backpack and camp: hidden while the teams pack" :
        `backpack: ${t.backpack} · camp: ${t.camp}`, card);
    }
    const legend = node("div", {class: "itc-legend"}, null, box);
    for (const [kind, words] of Object.entries(KIND_WORDS)) {
      const item = node("span", {class: "itc-key"}, null, legend);
      const sw = node("span", {class: "itc-swatch"}, pal.chars[kind], item);
      sw.style.background = rgb(pal.kinds[kind]);
      node("span", {}, ` ${words}`, item);
    }
    node("span", {class: "itc-key muted"}, "! token there · s1-3 squeeze (S: its token) · ? unexplored exit · " +
      "r: roped drop · d: drop, needs ropes · tent: camp · darker: deeper", legend);
  }

  function renderResult(v) {
    const box = document.getElementById("result");
    if (!v.over) { box.hidden = true; return; }
    const tm = v.board.turn;
    const scores = v.board.teams.map((t) => t.score === undefined ? 0 : t.score);
    const winners = v.board.teams.filter((t) => t.winner).map((t) => t.seat);
    box.hidden = false;
    Object.assign(box.dataset, {result: tm.result || "", scores: scores.join(","), winners: winners.join(","),
      round: tm.round, decisions: v.decisions});
    box.className = winners.length ? "medal-gold" : "medal-none";
    const who = winners.map((s) => `team ${s} (${v.board.teams[s].player})`).join(" and ");
    box.textContent = tm.result === "ended" ? `Result: ${winners.length ? (winners.length > 1 ? "winners " : "winner ") +
      who : "no winner"} · scores ${scores.join(" / ")} · round ${tm.round} · ${v.decisions} decisions` :
      `Result: stopped at the round limit (round ${tm.round}) · ${v.decisions} decisions`;
  }

  // The whole ITC page for one state (or one replay step: opts.mine false, no actions).
  function render(v, pal, opts) {
    draw(document.getElementById("board"), v.board, pal, opts);
    renderResult(v);
    if (opts.act) renderTurn(v, opts);
    renderTeams(v, pal);
  }

  // Keys: arrows move that way (or dive, or crawl), e end turn, r reveal, p done packing.
  const ARROW_DIR = {ArrowUp: "N", ArrowRight: "E", ArrowDown: "S", ArrowLeft: "W"};
  function keyAction(key, legal) {
    const named = (n) => legal.find((x) => x.name === n);
    if (key === "e") return named("end_turn");
    if (key === "r") return named("reveal");
    if (key === "p") return named("pack_done");
    const d = ARROW_DIR[key];
    if (d) return named(`move_${d}`) || named(`dive_${d}`) || named(`crawl_${d}`);
    return undefined;
  }

  return {render, draw, keyAction};
})();
