// Zoom and pan on the board: the SVG is drawn larger than its frame and the frame scrolls (a finger drags it on
// a phone, a mouse wheel or the scroll bars elsewhere); buttons, keys + and -, ctrl + wheel and a two-finger pinch
// change the level. A whole full cave at 390 px has cells of about 19 px;
// two steps of zoom make them 32 px or more. The level survives each new board (Board.draw resets the viewBox
// only); when the acting caver changes, the frame scrolls to it.
"use strict";

const Zoom = (() => {
  const LEVELS = [1, 1.5, 2, 2.5, 3, 4];
  let level = 0;        // index into LEVELS
  let lastActor = null;

  const svg = () => document.getElementById("board");
  const wrap = () => document.getElementById("board-wrap");

  function viewBox() {
    const vb = svg().viewBox.baseVal;
    return vb && vb.width ? vb : null;
  }

  // The board's cell size on screen, in CSS pixels (Svg.C user units per cell).
  function cellPx() {
    const vb = viewBox();
    if (!vb) return 0;
    return svg().getBoundingClientRect().width * Svg.C / vb.width;
  }

  function apply() {
    const s = svg(), w = wrap(), vb = viewBox();
    const z = LEVELS[level];
    w.classList.toggle("zoomed", z > 1);
    if (z === 1 || !vb) {
      s.style.width = "";
      s.style.height = "";
    } else {
      const width = w.clientWidth * z;
      s.style.width = `${width}px`;
      s.style.height = `${width * vb.height / vb.width}px`;
    }
    w.dataset.zoom = String(z);
    w.dataset.cellPx = String(Math.round(cellPx()));
    document.getElementById("zoom-level").textContent = `${Math.round(z * 100)}%`;
  }

  // Change the level, keeping the middle of what is shown in the middle.
  function set(i) {
    const w = wrap();
    const fx = (w.scrollLeft + w.clientWidth / 2) / Math.max(1, w.scrollWidth);
    const fy = (w.scrollTop + w.clientHeight / 2) / Math.max(1, w.scrollHeight);
    level = Math.max(0, Math.min(LEVELS.length - 1, i));
    apply();
    w.scrollLeft = fx * w.scrollWidth - w.clientWidth / 2;
    w.scrollTop = fy * w.scrollHeight - w.clientHeight / 2;
  }

  // Scroll so that cell (x, y) of the board (grid cells relative to the start) is in the middle of the frame.
  function focus(x, y) {
    const vb = viewBox();
    if (!vb || LEVELS[level] === 1) return;
    const w = wrap(), scale = svg().getBoundingClientRect().width / vb.width;
    w.scrollLeft = ((x + 0.5) * Svg.C - vb.x) * scale - w.clientWidth / 2;
    w.scrollTop = ((y + 0.5) * Svg.C - vb.y) * scale - w.clientHeight / 2;
  }

  // After each new board: the size again (the cave may have grown), and the acting caver in view when it changed.
  function drawn(board) {
    apply();
    const actor = board.cavers.find((c) => c.seat === board.team.actor);
    if (actor && actor.x !== null && actor.seat !== lastActor) focus(actor.x, actor.y);
    lastActor = actor ? actor.seat : null;
  }

  function init() {
    document.getElementById("zoom-in").addEventListener("click", () => set(level + 1));
    document.getElementById("zoom-out").addEventListener("click", () => set(level - 1));
    document.getElementById("zoom-fit").addEventListener("click", () => set(0));
    wrap().addEventListener("wheel", (e) => {   // ctrl + wheel (a trackpad's pinch) zooms the board, not the page
      if (!e.ctrlKey) return;
      e.preventDefault();
      set(level + (e.deltaY < 0 ? 1 : -1));
    }, {passive: false});
    window.addEventListener("resize", apply);
    // two fingers pinch the board (one finger pans it: the frame scrolls); a step per quarter of spread
    let spread = 0;
    const dist = (t) => Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY);
    wrap().addEventListener("touchstart", (e) => { if (e.touches.length === 2) spread = dist(e.touches); },
      {passive: true});
    wrap().addEventListener("touchmove", (e) => {
      if (e.touches.length !== 2 || !spread) return;
      e.preventDefault();   // the board zooms, not the page
      const r = dist(e.touches) / spread;
      if (r > 1.25 || r < 0.8) { set(level + (r > 1 ? 1 : -1)); spread = dist(e.touches); }
    }, {passive: false});
    wrap().addEventListener("touchend", () => { spread = 0; }, {passive: true});
  }

  return {init, set, step: (d) => set(level + d), drawn, cellPx, focus, level: () => LEVELS[level]};
})();
