// Labels that never overlap: each permanent Leaflet tooltip, in order of priority, is tried on the right,
// left, top and bottom of its marker (then shifted a line or two) and kept at the first spot where it
// overlaps no label already placed and stays inside the map; a label with no free spot is hidden (its
// place stays in the table and in the marker's popup).
(function () {
  "use strict";
  // Each side at first, then the sides again shifted by about a line, before a label is given up.
  const LINE = 16;
  const TRIES = [
    ["right", 0, 0], ["left", 0, 0], ["top", 0, 0], ["bottom", 0, 0],
    ["right", 0, -LINE], ["right", 0, LINE], ["left", 0, -LINE], ["left", 0, LINE],
    ["top", 0, -LINE], ["bottom", 0, LINE], ["right", 0, -2 * LINE], ["right", 0, 2 * LINE],
    ["left", 0, -2 * LINE], ["left", 0, 2 * LINE],
  ];
  const MARGIN = 2;
  const overlaps = (a, b) => a.left < b.right + MARGIN && b.left < a.right + MARGIN
    && a.top < b.bottom + MARGIN && b.top < a.bottom + MARGIN;
  const inside = (box, frame) => box.left >= frame.left && box.right <= frame.right
    && box.top >= frame.top && box.bottom <= frame.bottom;

  function declutter(map, tooltips) {
    const frame = map.getContainer().getBoundingClientRect();
    const placed = [];
    for (const tooltip of tooltips) {
      const node = tooltip.getElement();
      if (!node) continue;
      node.classList.remove("label-hidden");
      let kept = false;
      for (const [side, dx, dy] of TRIES) {
        tooltip.options.direction = side;
        tooltip.options.offset = L.point(dx, dy);
        tooltip.update();
        const box = node.getBoundingClientRect();
        if (inside(box, frame) && !placed.some((other) => overlaps(box, other))) {
          placed.push(box);
          kept = true;
          break;
        }
      }
      if (!kept) node.classList.add("label-hidden");
    }
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
