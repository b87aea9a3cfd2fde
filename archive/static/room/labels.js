// Labels that never overlap: each permanent Leaflet tooltip, in order of priority, is tried on the right of
// its marker, then on its left, above, below and a line or two up or down, and kept at the first spot where
// it overlaps no label already placed and stays inside the map; a label with no free spot is hidden (its
// place stays in the table and in the marker's popup). The label is moved by its margins, so Leaflet keeps
// positioning it on its marker as the map moves.
(function () {
  "use strict";
  const MARGIN = 2;
  const LINE = 16;
  const overlaps = (a, b) => a.left < b.right + MARGIN && b.left < a.right + MARGIN
    && a.top < b.bottom + MARGIN && b.top < a.bottom + MARGIN;
  const inside = (box, frame) => box.left >= frame.left && box.right <= frame.right
    && box.top >= frame.top && box.bottom <= frame.bottom;

  // Shifts from the label's place on the right of its marker, in the order they are tried.
  function shifts(box) {
    const left = -(box.width + 34);
    const middle = -(box.width / 2 + 17);
    return [
      [0, 0], [left, 0], [middle, -(box.height + 2)], [middle, box.height + 2],
      [0, -LINE], [0, LINE], [left, -LINE], [left, LINE],
      [0, -2 * LINE], [0, 2 * LINE], [left, -2 * LINE], [left, 2 * LINE],
    ];
  }

  // Writes, then one round of reads, then the placement in arithmetic, then writes: the page is laid out
  // twice however many labels there are.
  function declutter(map, tooltips) {
    const frame = map.getContainer().getBoundingClientRect();
    const nodes = tooltips.map((tooltip) => tooltip.getElement()).filter(Boolean);
    for (const node of nodes) {
      node.classList.remove("label-hidden");
      node.style.marginLeft = "0px";
      node.style.marginTop = "0px";
    }
    const starts = nodes.map((node) => node.getBoundingClientRect());
    const placed = [];
    const moves = starts.map((start) => {
      for (const [dx, dy] of shifts(start)) {
        const box = { left: start.left + dx, right: start.right + dx, top: start.top + dy, bottom: start.bottom + dy };
        if (inside(box, frame) && !placed.some((other) => overlaps(box, other))) {
          placed.push(box);
          return [dx, dy];
        }
      }
      return null;
    });
    nodes.forEach((node, index) => {
      const move = moves[index];
      if (move === null) {
        node.classList.add("label-hidden");
        return;
      }
      node.style.marginLeft = `${move[0]}px`;
      node.style.marginTop = `${move[1]}px`;
    });
  }

  // Run again whenever the view changes: what overlaps depends on the zoom.
  function keepApart(map, tooltips) {
    const run = () => declutter(map, tooltips());
    map.on("zoomend moveend resize", run);
    run();
    return run;
  }

  window.RoomLabels = { declutter, keepApart };
})();
