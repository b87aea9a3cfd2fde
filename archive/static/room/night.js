// The night at a glance: a slider moves the moment; the map, the table of who was where, the movements
// and the order of battle follow. The rule is the server's (archive/room/night.py): of one source's
// accounts covering the moment for one person or unit, the narrowest in time is the position.
(function () {
  "use strict";
  const holder = document.getElementById("night-map");
  const data = document.getElementById("night-data");
  const slider = document.getElementById("moment-slider");
  if (!holder || !data || !slider || typeof L === "undefined") return;
  // Who, places, events and sources come once each; a span names them (archive/room/night.py span_data).
  const tables = JSON.parse(data.textContent);
  const spans = tables.spans.map(([who, role, event, place, earliest, latest, asWritten, sources, kind, fictional]) => ({
    who: tables.who[who], role, event: tables.events[event], place: tables.places[place],
    earliest, latest, as_written: asWritten, sources: tables.sources[sources], kind, fictional,
    from: Date.parse(earliest), to: Date.parse(latest),
  }));
  const STEP = 15 * 60 * 1000;
  const OFFSET = 8 * 3600 * 1000;
  const TRAIL_SPAN = 24 * 3600 * 1000 - 60 * 1000;
  const start = Date.parse(slider.dataset.start);
  const end = Date.parse(slider.dataset.end);
  slider.max = String(Math.floor((end - start) / STEP));
  slider.value = String(Math.round((Date.parse(slider.dataset.at) - start) / STEP));
  document.getElementById("slider-box").hidden = false;

  const pad = (n) => String(n).padStart(2, "0");
  const clock = (ms) => {
    const d = new Date(ms + OFFSET);
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  };
  const own = (url) => typeof url === "string" && url.startsWith("/") && !url.startsWith("//");
  const link = (url, value) => {
    const node = document.createElement(own(url) ? "a" : "span");
    if (own(url)) node.setAttribute("href", url);
    node.textContent = String(value);
    node.setAttribute("lang", "zh");
    return node;
  };
  const cell = (tag, ...content) => {
    const node = document.createElement(tag);
    node.append(...content);
    return node;
  };

  // Each set of sources gets a number, shown in the key and in the labels.
  const sourceKey = new Map();
  for (const s of spans) {
    const key = s.sources.join("; ");
    if (!sourceKey.has(key)) sourceKey.set(key, sourceKey.size + 1);
  }
  const keyList = document.getElementById("source-key");
  for (const [names] of sourceKey) keyList.appendChild(cell("li", names));

  function positionsAt(at) {
    const covering = spans.filter((s) => s.from <= at && at <= s.to);
    const narrowest = new Map();
    for (const s of covering) {
      const key = `${s.who.key}|${s.sources.join("; ")}`;
      narrowest.set(key, Math.min(s.to - s.from, narrowest.has(key) ? narrowest.get(key) : Infinity));
    }
    const grouped = new Map();
    for (const s of covering) {
      if (s.to - s.from !== narrowest.get(`${s.who.key}|${s.sources.join("; ")}`)) continue;
      const key = `${s.who.key}|${s.place.slug}|${s.sources.join("; ")}`;
      if (!grouped.has(key)) grouped.set(key, { who: s.who, place: s.place, sources: s.sources, spans: [] });
      grouped.get(key).spans.push(s);
    }
    return [...grouped.values()].sort((a, b) => a.who.name.localeCompare(b.who.name) || a.place.name.localeCompare(b.place.name));
  }

  function trailsOf(positions) {
    const shown = new Set(positions.map((p) => p.who.key));
    const best = new Map();
    for (const s of spans) {
      if (!shown.has(s.who.key) || s.to - s.from >= TRAIL_SPAN) continue;
      const key = `${s.who.key}|${s.event.slug}|${s.from}|${s.to}`;
      const old = best.get(key);
      if (!old || s.place.radius < old.place.radius || (s.place.radius === old.place.radius && s.place.name < old.place.name)) best.set(key, s);
    }
    const paths = new Map();
    [...best.values()].sort((a, b) => a.from - b.from || a.to - b.to || (a.event.slug < b.event.slug ? -1 : 1)).forEach((s) => {
      if (!paths.has(s.who.key)) paths.set(s.who.key, []);
      const path = paths.get(s.who.key);
      if (!path.length || path[path.length - 1].place.slug !== s.place.slug) path.push(s);
    });
    return [...paths.values()].filter((path) => path.length > 1);
  }

  const map = L.map(holder, { zoomSnap: 0.5, attributionControl: false }).setView([32.06, 118.78], 11);
  fetch(holder.dataset.basemap).then((r) => r.json()).then((basemap) => {
    L.geoJSON(basemap, {
      style: (f) => f.properties.kind === "river" ? { color: "#7fb0d8", weight: 14, opacity: 0.8 } : { color: "#8a6d3b", weight: 3, fill: false, dashArray: "6 4" },
      interactive: false,
    }).addTo(map).bringToBack();
  });
  const layer = L.layerGroup().addTo(map);
  let tooltips = [];
  let fitted = false;
  const relabel = RoomLabels.keepApart(map, () => tooltips);
  const SIDE_COLOUR = { chinese: "#2f6db3", japanese: "#b3262f", third_country: "#2e8b57", unknown: "#555" };

  function drawMap(at, positions) {
    layer.clearLayers();
    tooltips = [];
    const points = [];
    for (const path of trailsOf(positions)) {
      const colour = SIDE_COLOUR[path[0].who.side] || "#555";
      for (let i = 1; i < path.length; i += 1) {
        const ahead = path[i].from > at;
        L.polyline([[path[i - 1].place.lat, path[i - 1].place.lon], [path[i].place.lat, path[i].place.lon]], {
          color: colour, weight: 2, opacity: 0.7, dashArray: ahead ? "4 6" : null, interactive: false,
        }).addTo(layer);
      }
      path.forEach((s) => points.push([s.place.lat, s.place.lon]));
    }
    const atPlace = new Map();
    for (const p of positions) {
      const key = `${p.place.slug}|${p.sources.join("; ")}`;
      if (!atPlace.has(key)) atPlace.set(key, { place: p.place, sources: p.sources, who: [] });
      atPlace.get(key).who.push(p);
    }
    // The busiest places are labelled first: they keep their label when space runs out.
    const groups = [...atPlace.values()].sort((a, b) => b.who.length - a.who.length || a.place.name.localeCompare(b.place.name));
    for (const group of groups) {
      const sides = new Set(group.who.map((p) => p.who.side));
      const colour = sides.size === 1 ? SIDE_COLOUR[[...sides][0]] || "#555" : "#7a5fb0";
      const dot = L.circleMarker([group.place.lat, group.place.lon], { radius: 7, color: colour, fillOpacity: 0.8, weight: 2 }).addTo(layer);
      const box = document.createElement("div");
      box.appendChild(cell("strong", link(group.place.url, group.place.name)));
      const list = document.createElement("ul");
      for (const p of group.who) list.appendChild(cell("li", link(p.who.url, p.who.name)));
      box.append(list, cell("p", `[${sourceKey.get(group.sources.join("; "))}] ${group.sources.join("; ")}`));
      dot.bindPopup(box);
      const label = document.createElement("span");
      label.textContent = `${group.place.name} · ${group.who.length} [${sourceKey.get(group.sources.join("; "))}]`;
      label.setAttribute("lang", "zh");
      label.dataset.short = group.place.name;
      dot.bindTooltip(label, { permanent: true, direction: "right", offset: [8, 0], className: "place-label" });
      tooltips.push(dot.getTooltip());
      RoomLabels.reachable(dot, `${label.textContent}: ${group.who.map((p) => p.who.name).join(", ")}`);
      points.push([group.place.lat, group.place.lon]);
    }
    // The view is fitted once to what the first moment shows, places outside the city included.
    if (!fitted && points.length) {
      map.fitBounds(L.latLngBounds(points), { padding: [30, 30], maxZoom: 14, animate: false });
      fitted = true;
    }
    relabel();
  }

  function drawTable(positions) {
    const body = document.getElementById("positions-body");
    const rows = positions.map((p) => {
      const row = document.createElement("tr");
      row.dataset.who = p.who.key;
      row.dataset.place = p.place.slug;
      const events = cell("td");
      p.spans.forEach((s, i) => {
        if (i) events.append("; ");
        events.append(link(s.event.url, s.event.title), ` (${s.role})`);
      });
      const who = cell("th", link(p.who.url, p.who.name));
      who.setAttribute("scope", "row");
      row.append(who, cell("td", link(p.place.url, p.place.name)), events,
        cell("td", p.spans.map((s) => s.as_written).join("; ")), cell("td", p.sources.join("; ")));
      return row;
    });
    body.replaceChildren(...rows);
  }

  function drawMoves(positions) {
    const list = document.getElementById("moves-list");
    list.replaceChildren(...trailsOf(positions).map((path) => cell("li", link(path[0].who.url, path[0].who.name), ": ",
      path.map((s) => `${s.place.name} (${clock(s.from).slice(5)})`).join(" → "))));
  }

  function drawCommands(at) {
    document.querySelectorAll(".command-list li.post").forEach((post) => {
      const from = post.dataset.start ? Date.parse(post.dataset.start) : -Infinity;
      const to = post.dataset.end ? Date.parse(post.dataset.end) : Infinity;
      post.hidden = !(from <= at && at <= to);
    });
  }

  function show() {
    const at = start + Number(slider.value) * STEP;
    const text = clock(at);
    document.getElementById("moment-shown").textContent = text;
    document.getElementById("where-moment").textContent = text;
    const field = document.getElementById("moment-at");
    if (field) field.value = text.replace(" ", "T");
    const positions = positionsAt(at);
    drawMap(at, positions);
    drawTable(positions);
    drawMoves(positions);
    drawCommands(at);
    const url = new URL(window.location.href);
    url.searchParams.set("at", text.replace(" ", "T"));
    window.history.replaceState(null, "", url.pathname + url.search);
  }

  slider.addEventListener("input", show);
  show();
})();
