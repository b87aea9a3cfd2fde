// The map: the archive's places as circles as wide as their precision, on a base layer the app serves.
(function () {
  "use strict";
  const holder = document.getElementById("map");
  const data = document.getElementById("map-data");
  if (!holder || !data || typeof L === "undefined") return;
  const places = JSON.parse(data.textContent);
  const map = L.map(holder, { zoomSnap: 0.5, attributionControl: false }).setView([32.06, 118.78], 12);
  fetch(holder.dataset.basemap)
    .then((response) => response.json())
    .then((basemap) => {
      L.geoJSON(basemap, {
        style: (feature) => feature.properties.kind === "river"
          ? { color: "#7fb0d8", weight: 14, opacity: 0.8 }
          : { color: "#8a6d3b", weight: 3, fill: false, dashArray: "6 4" },
        interactive: false,
      }).addTo(map).bringToBack();
    });
  const escape = (text) => String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  for (const place of places) {
    const busy = place.events.length > 0;
    L.circle([place.lat, place.lon], {
      radius: place.radius, color: busy ? "#8a1c1c" : "#555", weight: 1, fillOpacity: busy ? 0.25 : 0.1,
    }).addTo(map);
    const dot = L.circleMarker([place.lat, place.lon], {
      radius: busy ? 6 : 4, color: busy ? "#8a1c1c" : "#555", fillOpacity: 0.9, weight: 1,
    }).addTo(map);
    const events = place.events.map((e) => `<li><a href="${escape(e.url)}">${escape(e.title)}</a></li>`).join("");
    dot.bindPopup(`<a href="${escape(place.url)}"><strong>${escape(place.name)}</strong></a><br>${escape(place.precision)}${events ? `<ul>${events}</ul>` : ""}`);
    dot.bindTooltip(place.name, { permanent: busy, direction: "right", className: "place-label" });
  }
})();
