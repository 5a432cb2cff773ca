/* Menagerie replay viewer, analysis layer (only when the page holds "menagerie-analysis"):
   an evaluation graph per seat (SVG; click a point to jump to that step), marks on the
   step list, and the best move beside the move played at the current step. Additive: it
   drives the viewer through its own controls (the slider) and watches the step counter
   and the step list, so viewer.js knows nothing of it. */
(function () {
  "use strict";
  const holder = document.getElementById("menagerie-analysis");
  if (!holder) return;
  const an = JSON.parse(holder.textContent);
  const data = JSON.parse(document.getElementById("menagerie-data").textContent);
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  const COLOURS = ["#2563eb", "#c0262d", "#15803d", "#b7791f", "#7c3aed", "#0e7490"];
  const byStep = new Map(an.annotations.map((a) => [a.step, a]));
  const last = data.steps.length;

  function jump(step) {
    const slider = $("slider");
    slider.value = String(step);
    slider.dispatchEvent(new Event("input"));
  }

  function svgEl(name, attrs) {
    const el = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
    return el;
  }

  /* One line per seat: the evaluation of its position (the best move's value) at each of
     its decisions; a marked move is a larger dot in the mark's colour. */
  function graph() {
    const W = 640, H = 170, PAD = 28;
    const anns = an.annotations;
    const values = anns.map((a) => a.best_value).concat(anns.map((a) => a.value));
    let lo = Math.min(0, ...values), hi = Math.max(0, ...values);
    if (hi - lo < 1e-9) { hi += 1; lo -= 1; }
    const x = (k) => PAD + (W - 2 * PAD) * (k / Math.max(1, last));
    const y = (v) => H - PAD - (H - 2 * PAD) * ((v - lo) / (hi - lo));
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "eval-graph", role: "img" });
    svg.appendChild(svgEl("line", { x1: PAD, x2: W - PAD, y1: y(0), y2: y(0), class: "axis" }));
    const label = svgEl("text", { x: 2, y: 12, class: "axis-label" });
    label.textContent = `${an.unit}: ${hi.toFixed(1)} (top) to ${lo.toFixed(1)}`;
    svg.appendChild(label);
    const cursor = svgEl("line", { x1: 0, x2: 0, y1: PAD / 2, y2: H - PAD / 2, class: "cursor" });
    svg.appendChild(cursor);
    const seats = [...new Set(anns.map((a) => a.seat))].sort((a, b) => a - b);
    seats.forEach((seat) => {
      const mine = anns.filter((a) => a.seat === seat);
      const colour = COLOURS[seat % COLOURS.length];
      const points = mine.map((a) => `${x(a.step).toFixed(1)},${y(a.best_value).toFixed(1)}`);
      svg.appendChild(svgEl("polyline", { points: points.join(" "), fill: "none", stroke: colour, "stroke-width": 1.5 }));
      mine.forEach((a) => {
        const dot = svgEl("circle", {
          cx: x(a.step), cy: y(a.value), r: a.mark ? 4.5 : 2.5,
          fill: colour, class: "pt" + (a.mark ? " " + a.mark : ""), "data-step": a.step,
        });
        const title = svgEl("title", {});
        title.textContent = `step ${a.step}, seat ${a.seat}: ${a.played} ${a.value.toFixed(2)}` +
          (a.loss > 0 ? ` (best ${a.best} ${a.best_value.toFixed(2)}, loss ${a.loss.toFixed(2)})` : "") +
          (a.mark ? ` ${a.mark}` : "");
        dot.appendChild(title);
        dot.addEventListener("click", () => jump(a.step));
        svg.appendChild(dot);
      });
      const key = svgEl("text", { x: W - PAD - 90, y: 12 + 12 * seat, fill: colour, class: "axis-label" });
      key.textContent = `seat ${seat} ${(data.players[seat] || {}).name || ""}`;
      svg.appendChild(key);
    });
    svg.addEventListener("click", (e) => {
      if (e.target.classList && e.target.classList.contains("pt")) return;
      const box = svg.getBoundingClientRect();
      const k = Math.round(((e.clientX - box.left) * W / box.width - PAD) / (W - 2 * PAD) * last);
      jump(Math.max(0, Math.min(last, k)));
    });
    return { svg, cursor, x };
  }

  function markLog() {
    document.querySelectorAll("#log li[data-k]").forEach((li) => {
      const a = byStep.get(Number(li.dataset.k));
      if (!a || li.querySelector(".mark")) return;
      const span = document.createElement("span");
      span.className = "mark " + (a.mark || "good");
      span.textContent = a.mark ? ` ${SYMBOL[a.mark]} −${a.loss.toFixed(2)}` : "";
      if (a.mark) span.title = `${a.mark}: best ${a.best} (${a.best_value.toFixed(2)})`;
      li.appendChild(span);
    });
  }

  const panel = document.createElement("section");
  panel.id = "analysis";
  const h = document.createElement("h2");
  h.textContent = `Analysis (${an.analyser}; ${an.unit})`;
  const note = document.createElement("div");
  note.id = "analysis-step";
  const g = graph();
  panel.append(h, g.svg, note);
  $("stage").insertBefore(panel, $("board"));

  function update() {
    const k = Number($("slider").value);
    g.cursor.setAttribute("x1", g.x(k));
    g.cursor.setAttribute("x2", g.x(k));
    const a = byStep.get(k);
    note.replaceChildren();
    if (!a) { note.textContent = k > 0 ? "no analysis for this step" : ""; return; }
    const played = document.createElement("span");
    played.className = "played " + (a.mark || "");
    played.textContent = `played ${a.played} (${a.value.toFixed(2)})` + (a.mark ? ` ${SYMBOL[a.mark]} ${a.mark}` : "");
    const best = document.createElement("span");
    best.className = "best";
    const se = a.loss_se == null ? "" : ` ± ${a.loss_se.toFixed(2)}`;
    best.textContent = a.loss > 0 ? ` · best ${a.best} (${a.best_value.toFixed(2)}), loss ${a.loss.toFixed(2)}${se}`
      : a.tie ? ` · tie with the best ${a.best} (${a.best_value.toFixed(2)}): within the analysis's noise`
      : " · best move";
    note.append(played, best);
  }
  new MutationObserver(update).observe($("counter"), { childList: true, characterData: true, subtree: true });
  new MutationObserver(markLog).observe($("log"), { childList: true });
  markLog();
  update();
})();
