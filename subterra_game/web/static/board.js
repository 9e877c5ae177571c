// The cave as SVG: tiles with their open sides and type, floods, rubble, ropes, arrows, cavers with health,
// horrors, the empty cells a reveal can fill, and the legal actions on the cells they point at.
// Colours and type codes come from the server (/api/options: the same as the PNG frames of subterra replay).
"use strict";

const Board = (() => {
  const {C, DX, DY, rgb, el} = Svg;
  const ARROWS = ["\u2191", "\u2192", "\u2193", "\u2190"];


  const walls = (g, x, y, open, cls, w) => Svg.walls(g, x, y, open, 1, w, cls);

  function tile(g, t, pal) {
    const x = t.x, y = t.y;
    const fill = t.flood ? "url(#flood)" : rgb(pal.types[t.type]);
    el("rect", {x: x * C, y: y * C, width: C, height: C, fill, class: "tile", "data-type": t.type}, g);
    if (t.flood) el("rect", {x: x * C, y: y * C, width: C, height: C, fill: rgb(pal.types[t.type]), opacity: 0.35}, g);
    walls(g, x, y, t.open, "wall", 6);
    el("text", {x: x * C + 6, y: y * C + 16, class: "code"}, g, pal.codes[t.type]);
    let marks = "";
    if (t.flood) marks += "~";
    if (t.rubble) marks += "*";
    if (t.rope) marks += "r";
    if (t.bomb) marks += "B";
    if (t.item) marks += "I";
    if (t.arrow >= 0 && (t.type === "ledge" || t.type === "slide")) marks += ARROWS[t.arrow];
    if (marks) el("text", {x: x * C + C - 6, y: y * C + 16, class: "marks", "text-anchor": "end"}, g, marks);
    const title = el("title", {}, g, `${t.type} tile at ${t.where}` + (t.flood ? ", flooded" : "") +
      (t.rubble ? ", rubble" : "") + (t.rope ? ", rope" : "") + (t.bomb ? ", bomb placed" : "") + (t.item ? ", item token" : ""));
    title.setAttribute("data-i", t.i);
  }

  function cavers(g, list, pal, actor) {
    const byCell = new Map();
    for (const c of list) {
      if (c.dead || c.x === null) continue;
      const k = `${c.x},${c.y}`;
      if (!byCell.has(k)) byCell.set(k, []);
      byCell.get(k).push(c);
    }
    for (const group of byCell.values()) {
      group.forEach((c, i) => {
        const cx = (c.x + 0.2 + 0.3 * (i % 3)) * C, cy = (c.y + 0.42 + 0.3 * Math.floor(i / 3)) * C;
        const knocked = c.hp === 0;
        const cg = el("g", {class: "caver" + (c.seat === actor ? " acting" : "") + (knocked ? " knocked" : ""),
          "data-seat": c.seat}, g);
        el("circle", {cx, cy, r: 9, fill: rgb(pal.cavers[c.rank]), opacity: knocked || c.under ? 0.4 : 1}, cg);
        el("text", {x: cx, y: cy + 4, class: "rank", "text-anchor": "middle"}, cg, String(c.rank));
        for (let h = 0; h < c.max; h++) {   // health pips under the counter
          el("rect", {x: cx - 9 + h * 4, y: cy + 11, width: 3, height: 3, class: h < c.hp ? "pip" : "pip empty"}, cg);
        }
        el("title", {}, cg, `${c.caver} (${c.player}): health ${c.hp}/${c.max}` + (knocked ? ", knocked out" : "") +
          (c.under ? ", under water" : "") + (c.hidden ? ", hidden" : ""));
      });
    }
  }

  function horrors(g, list) {
    const n = new Map();
    for (const h of list) {
      const k = `${h.x},${h.y}`;
      const i = n.get(k) || 0;
      n.set(k, i + 1);
      const x = (h.x + 0.08 + 0.22 * i) * C, y = (h.y + 0.74) * C;
      el("rect", {x, y, width: 13, height: 13, class: h.leaper ? "leaper" : "horror"}, g);
      el("text", {x: x + 6.5, y: y + 11, class: "horror-h", "text-anchor": "middle"}, g, h.leaper ? "L" : "H");
    }
  }

  // Legal actions on the board: every cell an action points at gets a clickable outline; a drawn tile shows
  // its legal turnings as four small tiles in the cell where it will lie.
  function targets(g, legal, placing, pal, onPick) {
    Svg.cellTargets(g, legal, onPick);
    if (!placing) return;
    const rots = legal.filter((a) => a.open !== undefined);
    el("rect", {x: placing.x * C, y: placing.y * C, width: C, height: C, class: "placing"}, g);
    rots.forEach((a) => {
      const turn = Number(a.name.split(" ")[1]) / 90;   // "rotate 90" -> quadrant 1
      const qx = placing.x + 0.5 * (turn % 2), qy = placing.y + 0.5 * Math.floor(turn / 2);
      const mg = el("g", {class: "rotation", "data-action": a.id, tabindex: 0}, g);
      el("rect", {x: qx * C + 2, y: qy * C + 2, width: C / 2 - 4, height: C / 2 - 4,
        fill: rgb(pal.types[placing.type])}, mg);
      Svg.walls(mg, qx, qy, a.open, 0.5, 3);   // the mini tile's walls, at half scale inside its quadrant
      el("title", {}, mg, `${a.name}: ${a.detail}`);
      mg.addEventListener("click", (ev) => onPick([a], ev));
    });
  }

  function draw(svg, board, pal, opts) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const xs = [], ys = [];
    for (const t of board.tiles) { xs.push(t.x); ys.push(t.y); }
    for (const f of board.frontier) { xs.push(f.x); ys.push(f.y); }
    if (board.placing) { xs.push(board.placing.x); ys.push(board.placing.y); }
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const pad = 0.15;
    svg.setAttribute("viewBox", `${(x0 - pad) * C} ${(y0 - pad) * C} ${(x1 - x0 + 1 + 2 * pad) * C} ` +
      `${(y1 - y0 + 1 + 2 * pad) * C}`);
    const defs = el("defs", {}, svg);
    const pat = el("pattern", {id: "flood", width: 12, height: 12, patternUnits: "userSpaceOnUse"}, defs);
    el("rect", {width: 12, height: 12, fill: rgb(pal.flood)}, pat);
    el("path", {d: "M0 8 Q3 5 6 8 T12 8", stroke: "#9cc8ff", fill: "none", "stroke-width": 1.5}, pat);
    const g = el("g", {}, svg);
    for (const f of board.frontier) {
      el("rect", {x: f.x * C + 4, y: f.y * C + 4, width: C - 8, height: C - 8, class: "frontier"}, g);
      el("text", {x: (f.x + 0.5) * C, y: (f.y + 0.5) * C + 6, class: "frontier-q", "text-anchor": "middle"}, g, "?");
    }
    for (const t of board.tiles) tile(g, t, pal);
    horrors(g, board.horrors);
    cavers(g, board.cavers, pal, board.team.actor);
    if (opts.mine) targets(g, board.legal, board.placing, pal, opts.onPick);
    else if (board.placing) {
      el("rect", {x: board.placing.x * C, y: board.placing.y * C, width: C, height: C, class: "placing"}, g);
    }
  }

  return {draw, DX, DY};
})();
