// Labels that never overlap: each permanent Leaflet tooltip, in order of priority, is tried on the right,
// left, top and bottom of its marker and kept on the first side where it overlaps no label already
// placed and stays inside the map; a label with no free side is hidden (its place stays in the table).
(function () {
  "use strict";
  const SIDES = ["right", "left", "top", "bottom"];
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
      for (const side of SIDES) {
        tooltip.options.direction = side;
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
