// The timeline: one row per event, one bar per account, from its earliest to its latest moment.
// Drawn as SVG from the JSON the page carries; the table under it holds the same data.
(function () {
  "use strict";
  const holder = document.getElementById("timeline");
  const source = document.getElementById("timeline-data");
  if (!holder || !source) return;
  const rows = JSON.parse(source.textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const HOUR = 3600 * 1000;
  const ROW = 22, AXIS = 28;
  const full = { start: Date.parse(holder.dataset.start), end: Date.parse(holder.dataset.end) };
  let view = { start: full.start, end: full.end };
  // Nanjing time (UTC+8) for the presets and the axis, whatever the reader's clock says.
  const OFFSET = 8 * HOUR;
  const nanjing = (y, m, d, h) => Date.UTC(y, m - 1, d, h) - OFFSET;
  const presets = {
    days: () => ({ start: full.start, end: full.end }),
    day12: () => ({ start: nanjing(1937, 12, 12, 0), end: nanjing(1937, 12, 13, 0) }),
    night12: () => ({ start: nanjing(1937, 12, 12, 15), end: nanjing(1937, 12, 13, 3) }),
  };

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const pad = (n) => String(n).padStart(2, "0");

  function label(ms) {
    const d = new Date(ms + OFFSET);
    return `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  }

  // An axis tick shows the hour; the day only where it changes.
  function tick(ms, first) {
    const d = new Date(ms + OFFSET);
    const hour = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    return first || (d.getUTCHours() === 0 && d.getUTCMinutes() === 0) ? `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${hour}` : hour;
  }

  // The finest step that leaves room for a label (about 70 pixels).
  function step(span, plot) {
    const steps = [HOUR / 2, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];
    return steps.find((s) => (plot * s) / span >= 70) || 24 * HOUR;
  }

  // The map and the night view follow the window the reader zoomed to (the night view at its middle).
  function updateMapLink() {
    for (const id of ["map-link", "night-link"]) {
      const link = document.getElementById(id);
      if (!link) continue;
      const url = new URL(link.href, window.location.href);
      url.searchParams.set("from", new Date(view.start).toISOString());
      url.searchParams.set("to", new Date(view.end).toISOString());
      if (id === "night-link") url.searchParams.set("at", new Date(Math.round((view.start + view.end) / 2 / 60000) * 60000).toISOString());
      link.href = url.pathname + url.search;
    }
  }

  // The rows under their groups: by unit or by place as the reader chose (an event shows in each of its groups).
  function blocks(visible) {
    const by = holder.dataset.group === "unit" ? "units" : holder.dataset.group === "place" ? "places" : null;
    if (!by) return [{ label: null, rows: visible }];
    const groups = new Map();
    const none = [];
    for (const row of visible) {
      if (!row[by].length) none.push(row);
      for (const name of row[by]) {
        if (!groups.has(name)) groups.set(name, []);
        groups.get(name).push(row);
      }
    }
    const found = [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([label, rows]) => ({ label, rows }));
    if (none.length) found.push({ label: holder.dataset.none || "—", rows: none });
    return found;
  }

  const overlaps = (a, b) => a.x < b.x + b.width + 2 && b.x < a.x + a.width + 2 && a.y < b.y + b.height && b.y < a.y + a.height;

  // Text cut to a width in pixels, measured in the drawing itself.
  function fit(node, text, room) {
    node.textContent = text;
    if (node.getComputedTextLength() <= room) return true;
    for (let n = text.length - 1; n > 0; n -= 1) {
      node.textContent = text.slice(0, n) + "…";
      if (node.getComputedTextLength() <= room) return true;
    }
    return false;
  }

  function draw() {
    // A phone's width keeps the labels short and the bars in view.
    const width = Math.max(holder.clientWidth, 300);
    const LABEL = width < 600 ? 110 : 240;
    const plot = width - LABEL - 10;
    const span = view.end - view.start;
    const x = (ms) => LABEL + ((ms - view.start) / span) * plot;
    const visible = rows.filter((row) => row.bars.some((b) => Date.parse(b.latest) >= view.start && Date.parse(b.earliest) < view.end));
    const grouped = blocks(visible);
    const lanes = grouped.reduce((n, block) => n + (block.label ? 1 : 0) + block.rows.reduce((m, row) => m + Math.max(row.bars.length, 1), 0), 0);
    const height = AXIS + lanes * ROW + 10;
    const svg = el("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
    // Drawn into the page first, so that text can be measured while it is placed.
    holder.replaceChildren(svg);
    const axis = el("g", { class: "axis" });
    svg.appendChild(axis);
    const every = step(span, plot);
    // Ticks fall on whole hours of Nanjing time; a label that would touch the one before is left out.
    const first = Math.ceil((view.start + OFFSET) / every) * every - OFFSET;
    let lastBox = null;
    for (let t = first; t <= view.end; t += every) {
      axis.appendChild(el("line", { x1: x(t), x2: x(t), y1: AXIS - 6, y2: height }));
      const text = el("text", { x: x(t) + 2, y: AXIS - 10, class: "tick" }, tick(t, t === first));
      axis.appendChild(text);
      const box = text.getBBox();
      if ((lastBox && overlaps(box, lastBox)) || box.x + box.width > width) text.remove();
      else lastBox = box;
    }
    let y = AXIS;
    for (const block of grouped) {
      if (block.label) {
        svg.appendChild(el("text", { class: "group-label", x: 4, y: y + 15, lang: "zh" }, block.label));
        y += ROW;
      }
      for (const row of block.rows) {
        const group = el("g", { class: "row", "data-slug": row.slug });
        svg.appendChild(group);
        // Only the app's own paths are linked: never a javascript: URL.
        const own = typeof row.url === "string" && row.url.startsWith("/") && !row.url.startsWith("//");
        const link = el("a", own ? { href: row.url } : {});
        // Under a group heading every event stands at one level: its parent may be in another group.
        const indent = (block.label ? 1 : row.depth) * 14;
        const name = el("text", { class: "row-label", x: 4 + indent, y: y + 15, lang: "zh" });
        link.appendChild(name);
        group.appendChild(link);
        fit(name, row.title, LABEL - 8 - indent);
        row.bars.forEach((bar, lane) => {
          const from = Math.max(Date.parse(bar.earliest), view.start);
          const to = Math.min(Date.parse(bar.latest), view.end);
          if (to < view.start || from > view.end) return;
          const top = y + lane * ROW;
          const rect = el("rect", {
            class: `bar kind-${bar.kind} side-${row.side}${bar.fictional ? " fictional" : ""}`,
            x: x(from), y: top + 4, width: Math.max(x(to) - x(from), 3), height: ROW - 8, rx: 3,
            tabindex: 0, "data-kind": bar.kind, "data-side": row.side,
          });
          const written = bar.as_written ? `“${bar.as_written}”` : "";
          const text = `${row.title} ${written} ${label(Date.parse(bar.earliest))} – ${label(Date.parse(bar.latest))} · ${bar.source}`;
          // The title shows on hover; the label is read when the bar has the keyboard's focus.
          rect.setAttribute("role", "img");
          rect.setAttribute("aria-label", text);
          rect.appendChild(el("title", {}, text));
          group.appendChild(rect);
          // The source is written beside its bar: after it where there is room, else before it, else cut short.
          const named = bar.source ? `${bar.source}${bar.fictional ? ` · ${holder.dataset.fiction || "fiction"}` : ""}` : "";
          if (!named) return;
          const note = el("text", { class: "source-label", y: top + 15, lang: "zh" });
          group.appendChild(note);
          const after = width - 4 - (x(to) + 4);
          const before = x(from) - 4 - LABEL;
          if (fit(note, named, after) || after >= before) {
            fit(note, named, after);
            note.setAttribute("x", x(to) + 4);
          } else {
            fit(note, named, before);
            note.setAttribute("x", x(from) - 4);
            note.setAttribute("text-anchor", "end");
          }
          if (note.getComputedTextLength() < 12) note.remove();
        });
        y += Math.max(row.bars.length, 1) * ROW;
      }
    }
    updateMapLink();
  }

  function zoom(factor) {
    const middle = (view.start + view.end) / 2;
    const half = Math.max(((view.end - view.start) * factor) / 2, HOUR / 2);
    view = { start: middle - half, end: middle + half };
  }

  document.querySelectorAll("[data-zoom]").forEach((button) => {
    button.addEventListener("click", () => {
      const what = button.dataset.zoom;
      const span = view.end - view.start;
      if (presets[what]) view = presets[what]();
      else if (what === "in") zoom(0.5);
      else if (what === "out") zoom(2);
      else if (what === "left") view = { start: view.start - span / 4, end: view.end - span / 4 };
      else if (what === "right") view = { start: view.start + span / 4, end: view.end + span / 4 };
      draw();
    });
  });
  window.addEventListener("resize", draw);
  draw();
})();
