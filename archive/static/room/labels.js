// Labels that never overlap and are never left out: each permanent Leaflet tooltip, in order of priority, is
// tried on the right of its marker, then on its left, above, below and a line or two up or down; where all
// these are taken it goes further out, nearest spot first, with a leader line back to its marker; where no
// spot is free even then, its short form (the place's name alone, `data-short`) is tried the same way. A
// label is hidden only when not even its short form finds room inside the map (its place stays in the
// table and in the marker's popup). The label is moved by its margins, so Leaflet keeps positioning it on its
// marker as the map moves; the leader lines are drawn again whenever the labels are.
(function () {
  "use strict";
  const MARGIN = 2;
  const LINE = 16;
  // A label further than this from its marker gets a leader line.
  const NEAR = 16;
  const overlaps = (a, b) => a.left < b.right + MARGIN && b.left < a.right + MARGIN
    && a.top < b.bottom + MARGIN && b.top < a.bottom + MARGIN;
  const inside = (box, frame) => box.left >= frame.left && box.right <= frame.right
    && box.top >= frame.top && box.bottom <= frame.bottom;
  const moved = (box, dx, dy) => ({ left: box.left + dx, right: box.right + dx, top: box.top + dy, bottom: box.bottom + dy });
  // The point of a box nearest to a point outside it.
  const nearest = (box, point) => ({
    x: Math.min(Math.max(point.x, box.left), box.right), y: Math.min(Math.max(point.y, box.top), box.bottom),
  });
  const distance = (box, point) => {
    const near = nearest(box, point);
    return Math.hypot(near.x - point.x, near.y - point.y);
  };

  // Shifts from the label's place on the right of its marker: the near ones in the order they are tried,
  // then the far ones, nearest to the marker first.
  function shifts(box, anchor) {
    const left = -(box.width + 34);
    const middle = -(box.width / 2 + 17);
    const near = [
      [0, 0], [left, 0], [middle, -(box.height + 2)], [middle, box.height + 2],
      [0, -LINE], [0, LINE], [left, -LINE], [left, LINE],
      [0, -2 * LINE], [0, 2 * LINE], [left, -2 * LINE], [left, 2 * LINE],
    ];
    const far = [];
    for (let row = -12; row <= 12; row += 1) {
      for (const dx of [0, 30, 60, 100, left, left - 30, left - 60, left - 100, middle]) far.push([dx, row * LINE]);
    }
    far.sort((a, b) => distance(moved(box, ...a), anchor) - distance(moved(box, ...b), anchor));
    return [...near, ...far];
  }

  function place(start, anchor, frame, placed) {
    for (const [dx, dy] of shifts(start, anchor)) {
      const box = moved(start, dx, dy);
      if (inside(box, frame) && !placed.some((other) => overlaps(box, other))) {
        placed.push(box);
        return [dx, dy, box];
      }
    }
    return null;
  }

  function leadersOf(map) {
    const pane = map.getPane("tooltipPane");
    let holder = pane.querySelector(":scope > .label-leaders");
    if (!holder) {
      holder = document.createElement("div");
      holder.className = "label-leaders";
      pane.appendChild(holder);
    }
    return holder;
  }

  function leader(holder, origin, from, to) {
    const line = document.createElement("div");
    line.className = "label-leader";
    line.style.left = `${from.x - origin.left}px`;
    line.style.top = `${from.y - origin.top}px`;
    line.style.width = `${Math.hypot(to.x - from.x, to.y - from.y)}px`;
    line.style.transform = `rotate(${Math.atan2(to.y - from.y, to.x - from.x)}rad)`;
    holder.appendChild(line);
  }

  // Writes, then one round of reads, then the placement in arithmetic, then writes: the page is laid out
  // twice however many labels there are (three times when a label must be shortened).
  function declutter(map, tooltips) {
    const container = map.getContainer();
    const frame = container.getBoundingClientRect();
    const shown = tooltips.filter((tooltip) => tooltip.getElement());
    const nodes = shown.map((tooltip) => tooltip.getElement());
    for (const node of nodes) {
      node.classList.remove("label-hidden");
      node.style.marginLeft = "0px";
      node.style.marginTop = "0px";
      const text = node.querySelector("[data-short]");
      if (text && text.dataset.full) text.textContent = text.dataset.full;
    }
    const anchors = shown.map((tooltip) => {
      const point = map.latLngToContainerPoint(tooltip.getLatLng());
      return { x: frame.left + point.x, y: frame.top + point.y };
    });
    const starts = nodes.map((node) => node.getBoundingClientRect());
    // The map's own controls (zoom buttons) are in the way as much as another label.
    const placed = [...container.querySelectorAll(".leaflet-control")].map((control) => control.getBoundingClientRect());
    const moves = starts.map((start, index) => place(start, anchors[index], frame, placed));
    // What found no room is tried again in its short form, with the room the others left.
    const short = nodes.map((node, index) => (moves[index] === null ? node.querySelector("[data-short]") : null));
    short.forEach((text) => {
      if (!text) return;
      text.dataset.full = text.textContent;
      text.textContent = text.dataset.short;
    });
    short.forEach((text, index) => {
      if (text) moves[index] = place(nodes[index].getBoundingClientRect(), anchors[index], frame, placed);
    });
    const holder = leadersOf(map);
    holder.replaceChildren();
    const origin = holder.getBoundingClientRect();
    nodes.forEach((node, index) => {
      const move = moves[index];
      if (move === null) {
        node.classList.add("label-hidden");
        return;
      }
      node.style.marginLeft = `${move[0]}px`;
      node.style.marginTop = `${move[1]}px`;
      if (distance(move[2], anchors[index]) > NEAR) leader(holder, origin, anchors[index], nearest(move[2], anchors[index]));
    });
  }

  // Run again whenever the view changes: what overlaps depends on the zoom.
  function keepApart(map, tooltips) {
    const run = () => declutter(map, tooltips());
    map.on("zoomend moveend resize", run);
    run();
    return run;
  }

  // A marker reached by Tab, named for a screen reader, opened by Enter or Space as a click opens it.
  function reachable(marker, name) {
    const node = marker.getElement && marker.getElement();
    if (!node) return;
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", name);
    node.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      marker.openPopup();
    });
  }

  window.RoomLabels = { declutter, keepApart, reachable };
})();
