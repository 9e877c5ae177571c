// What both boards (Sub Terra's board.js, In the Cave's itc_board.js) and the page (app.js) draw with: SVG and
// HTML elements, colours, a cell's walls and the clickable outlines of the legal actions on the cells they point at.
// One copy, loaded before the others (index.html).
"use strict";

const Svg = (() => {
  const C = 64;            // SVG units per cell
  const NS = "http://www.w3.org/2000/svg";
  const DX = [0, 1, 0, -1], DY = [-1, 0, 1, 0];
  const rgb = (c) => `rgb(${c[0]},${c[1]},${c[2]})`;

  function el(name, attrs, parent, text) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // HTML elements; text always as textContent, so names typed by people never become markup.
  function node(tag, attrs, text, parent) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // The walls of a cell at (x, y) and scale s (1: a whole cell, 0.5: a turning's mini tile): a closed side is a
  // full line, an open side (bit d of open) leaves a gap in its middle third.
  function walls(g, x, y, open, s, w, cls) {
    const pts = [[[0, 0], [1, 0]], [[1, 0], [1, 1]], [[0, 1], [1, 1]], [[0, 0], [0, 1]]];
    for (let d = 0; d < 4; d++) {
      const [[ax, ay], [bx, by]] = pts[d];
      const seg = (f0, f1) => el("line", {
        x1: (x + s * (ax + (bx - ax) * f0)) * C, y1: (y + s * (ay + (by - ay) * f0)) * C,
        x2: (x + s * (ax + (bx - ax) * f1)) * C, y2: (y + s * (ay + (by - ay) * f1)) * C, class: cls || "wall",
        "stroke-width": w}, g);
      if (open & (1 << d)) { seg(0, 1 / 3); seg(2 / 3, 1); } else seg(0, 1);
    }
  }

  // The actions that point at a cell (a.x, a.y) and place no tile (no a.open), grouped by cell; each cell gets a
  // clickable outline whose click hands its actions to onPick (which asks when there are several).
  function cellTargets(g, legal, onPick) {
    const cells = new Map();
    for (const a of legal) {
      if (a.x === undefined || a.open !== undefined) continue;
      const k = `${a.x},${a.y}`;
      if (!cells.has(k)) cells.set(k, []);
      cells.get(k).push(a);
    }
    for (const [k, acts] of cells) {
      const [x, y] = k.split(",").map(Number);
      const r = el("rect", {x: x * C + 3, y: y * C + 3, width: C - 6, height: C - 6, class: "target",
        "data-actions": acts.map((a) => a.id).join(" "), "data-x": x, "data-y": y, tabindex: 0}, g);
      el("title", {}, r, acts.map((a) => a.name).join(" / "));
      r.addEventListener("click", (ev) => onPick(acts, ev));
    }
  }

  return {C, NS, DX, DY, rgb, el, node, walls, cellTargets};
})();
