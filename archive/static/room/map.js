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
  // Names and titles are data: they reach the page as text nodes, never as HTML (Leaflet reads a string as HTML).
  const text = (value) => document.createTextNode(String(value));
  // Links are the app's own paths; anything else (a javascript: URL) is not linked.
  const link = (url, content) => {
    const own = typeof url === "string" && url.startsWith("/") && !url.startsWith("//");
    const node = document.createElement(own ? "a" : "span");
    if (own) node.setAttribute("href", url);
    node.appendChild(content);
    return node;
  };
  const popup = (place) => {
    const box = document.createElement("div");
    const name = document.createElement("strong");
    name.appendChild(text(place.name));
    box.append(link(place.url, name), document.createElement("br"), text(place.precision));
    if (place.events.length) {
      const list = document.createElement("ul");
      for (const e of place.events) {
        const item = document.createElement("li");
        item.appendChild(link(e.url, text(e.title)));
        list.appendChild(item);
      }
      box.appendChild(list);
    }
    return box;
  };
  const tooltips = [];
  const points = [];
  // Places where something happened in the window are labelled first, then the rest by name.
  const ordered = [...places].sort((a, b) => b.events.length - a.events.length || a.name.localeCompare(b.name));
  for (const place of ordered) {
    const busy = place.events.length > 0;
    L.circle([place.lat, place.lon], {
      radius: place.radius, color: busy ? "#8a1c1c" : "#555", weight: 1, fillOpacity: busy ? 0.25 : 0.1,
    }).addTo(map);
    const dot = L.circleMarker([place.lat, place.lon], {
      radius: busy ? 6 : 4, color: busy ? "#8a1c1c" : "#555", fillOpacity: 0.9, weight: 1,
    }).addTo(map);
    dot.bindPopup(popup(place));
    const label = document.createElement("span");
    label.appendChild(text(place.name));
    dot.bindTooltip(label, { permanent: busy, direction: "right", offset: [8, 0], className: "place-label" });
    if (window.RoomLabels) window.RoomLabels.reachable(dot, place.name);
    if (busy) {
      tooltips.push(dot.getTooltip());
      points.push([place.lat, place.lon]);
    }
  }
  // The view fits what the window shows (places outside the city too), or every place when nothing happened.
  const shown = points.length ? points : places.map((place) => [place.lat, place.lon]);
  if (shown.length) map.fitBounds(L.latLngBounds(shown), { padding: [30, 30], maxZoom: 14, animate: false });
  if (window.RoomLabels) window.RoomLabels.keepApart(map, () => tooltips);
})();
