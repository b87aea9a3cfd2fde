/*
 * The source reader's citation form.
 *
 * A selection inside a passage is measured against the passage element's own
 * text with the Range API: the length of the text before the selection and of
 * the selection itself, in UTF-16 code units, which is what the DOM counts.
 * The server converts these offsets to code points and verifies the quote;
 * nothing here needs to know about surrogate pairs.
 */
(function () {
  "use strict";

  function passageOf(node) {
    var el = node && (node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement);
    return el ? el.closest(".passage-text") : null;
  }

  /* Offsets of `range` within `el`'s text, in UTF-16 units. */
  function offsetsIn(el, range) {
    var before = document.createRange();
    before.selectNodeContents(el);
    before.setEnd(range.startContainer, range.startOffset);
    var start = before.toString().length;
    return { start: start, end: start + range.toString().length };
  }

  function codePoints(text) {
    return Array.from(text).length;
  }

  function currentSelection() {
    var sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
    var range = sel.getRangeAt(0);
    var el = passageOf(range.startContainer);
    if (!el || el !== passageOf(range.endContainer)) return { crosses: true };
    var offsets = offsetsIn(el, range);
    if (offsets.end <= offsets.start) return null;
    return { el: el, start: offsets.start, end: offsets.end, quote: range.toString() };
  }

  function fillForm(form, selection) {
    form.querySelector("[name=start]").value = selection.start;
    form.querySelector("[name=end]").value = selection.end;
    form.querySelector("[name=quote]").value = selection.quote;
    var text = selection.el.textContent;
    var offsets = form.querySelector("[data-role=offsets]");
    if (offsets) {
      var from = codePoints(text.slice(0, selection.start));
      offsets.textContent = "[" + from + "–" + (from + codePoints(selection.quote)) + "]";
    }
  }

  /* What the curator did last, kept in this browser: the kind cited and the claims written. */
  var LAST_KIND = "archive.cite.lastKind";
  var LAST_CLAIMS = "archive.cite.lastClaims";
  var CLAIMS_KEPT = 6;

  function remembered(key, fallback) {
    try {
      var value = window.localStorage.getItem(key);
      return value ? JSON.parse(value) : fallback;
    } catch (error) {
      return fallback;
    }
  }

  function remember(key, value) {
    try { window.localStorage.setItem(key, JSON.stringify(value)); } catch (error) { /* private mode: forget */ }
  }

  /*
   * The record list, the kind and the claim's suggestions. Until the curator
   * chooses a kind, the search looks in every kind and picking a record sets
   * the kind; the kind is preselected from what the selection names (asked of
   * the server), else the kind used last.
   */
  function setupTargets(form) {
    var typeSelect = form.querySelector("[name=target_type]");
    var search = form.querySelector("[data-role=target-search]");
    var select = form.querySelector("[name=target_id]");
    var claim = form.querySelector("[name=claim]");
    var suggestions = form.querySelector("[data-role=claim-templates]");
    var claims = JSON.parse(form.dataset.claims || "{}");
    var url = form.dataset.targetsUrl;
    var timer = null;
    var serial = 0;
    var kindChosen = false;

    function load(override) {
      var mine = ++serial;
      var term = override ? override.q : search.value.trim();
      var type = override ? override.type : (kindChosen || !term ? typeSelect.value : "");
      var query = "?type=" + encodeURIComponent(type) + "&q=" + encodeURIComponent(term);
      return fetch(url + query, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.json(); })
        .then(function (data) {
          if (mine !== serial || !data.results) return;
          var keep = select.value;
          select.replaceChildren();
          var blank = document.createElement("option");
          blank.value = "";
          blank.textContent = "---------";
          select.appendChild(blank);
          data.results.forEach(function (item) {
            var option = document.createElement("option");
            option.value = item.id;
            option.textContent = item.text;
            option.dataset.kind = item.kind || "";
            if (item.claim) option.dataset.claim = item.claim;
            select.appendChild(option);
          });
          if (data.results.length === 1) select.value = String(data.results[0].id);
          else if (keep) select.value = keep;
          chosenRecord();
          form.dispatchEvent(new CustomEvent("targets-loaded", { detail: data.results.length }));
        });
    }

    /* The claims offered: the last ones written, the kind's templates, the role's for a participation. */
    function offerClaims() {
      if (!claim || !suggestions) return;
      var type = typeSelect.value;
      var option = select.selectedOptions[0];
      var offered = [];
      if (option && option.dataset.claim) offered.push(option.dataset.claim);
      offered = offered.concat(remembered(LAST_CLAIMS, []), (claims.templates || {})[type] || []);
      suggestions.replaceChildren();
      offered.filter(function (text, at) { return text && offered.indexOf(text) === at; }).forEach(function (text) {
        var item = document.createElement("option");
        item.value = text;
        suggestions.appendChild(item);
      });
      var optional = (claims.optional || []).indexOf(type) >= 0;
      claim.placeholder = optional ? form.dataset.claimOptional || "" : form.dataset.claimRequired || "";
      claim.required = !optional && type !== "";
    }

    function chosenRecord() {
      var option = select.selectedOptions[0];
      var kind = option && option.dataset.kind;
      if (kind && kind !== typeSelect.value) {
        typeSelect.value = kind;
        newRecord.showFields();
      }
      offerClaims();
    }

    /* A new selection: the kind it most likely names, its records offered; the search starts empty. */
    function preset(words) {
      kindChosen = false;
      search.value = "";
      select.value = "";
      return fetch(form.dataset.kindUrl + "?words=" + encodeURIComponent(words), {
        credentials: "same-origin", headers: { Accept: "application/json" }
      })
        .then(function (response) { return response.json(); })
        .catch(function () { return {}; })
        .then(function (data) {
          if (kindChosen) return undefined;  // the curator chose a kind meanwhile: theirs stands
          var kind = data.kind || remembered(LAST_KIND, "") || "";
          typeSelect.value = kind;
          if (typeSelect.value !== kind) typeSelect.value = "";
          newRecord.showFields();
          offerClaims();
          if (data.kind && data.ids && data.ids.length) return load({ type: data.kind, q: words });
          return load({ type: typeSelect.value, q: "" });
        });
    }

    typeSelect.addEventListener("change", function () {
      kindChosen = typeSelect.value !== "";
      select.value = "";
      newRecord.showFields();
      offerClaims();
      load();
    });
    select.addEventListener("change", chosenRecord);
    var newRecord = setupNewRecord(form, typeSelect, select);
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(load, 200);
    });
    search.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        clearTimeout(timer);
        load();
      }
    });
    form.addEventListener("submit", function () {
      if (typeSelect.value) remember(LAST_KIND, typeSelect.value);
      var written = claim ? claim.value.trim() : "";
      if (written) {
        var last = remembered(LAST_CLAIMS, []).filter(function (text) { return text !== written; });
        remember(LAST_CLAIMS, [written].concat(last).slice(0, CLAIMS_KEPT));
      }
    });
    offerClaims();
    newRecord.preset = preset;
    return newRecord;
  }

  /*
   * "New record from the selection": a short form inside the citation form,
   * prefilled by the server from the selected words (the name, Simplified for
   * Traditional words; the slug from its pinyin; what kind of name the words are).
   */
  function setupNewRecord(form, typeSelect, select) {
    var toggle = form.querySelector("[data-role=new-record-toggle]");
    var box = form.querySelector("[data-role=new-record]");
    var existing = form.querySelector("[data-role=existing-record]");
    if (!toggle || !box) return { showFields: function () {}, reset: function () {} };
    var name = box.querySelector("[name=new_name]");
    var slug = box.querySelector("[name=new_slug]");
    var wordsKind = box.querySelector("[name=new_words_kind]");
    var creatable = ["person", "unit", "location", "event"];

    function showFields() {
      var type = typeSelect.value;
      toggle.hidden = creatable.indexOf(type) < 0;
      if (toggle.hidden) close();
      box.querySelectorAll("[data-for]").forEach(function (row) {
        row.hidden = row.dataset.for !== "all" && row.dataset.for !== type;
      });
    }

    function fetchDefaults(params) {
      var query = new URLSearchParams(params);
      query.set("type", typeSelect.value);
      return fetch(toggle.dataset.defaultsUrl + "?" + query.toString(), {
        credentials: "same-origin", headers: { Accept: "application/json" }
      }).then(function (response) { return response.json(); });
    }

    function open() {
      var words = form.querySelector("[name=quote]").value;
      box.hidden = false;
      if (existing) existing.hidden = true;
      select.value = "";
      showFields();
      fetchDefaults({ words: words }).then(function (data) {
        if (data.error) return;
        name.value = data.name;
        slug.value = data.slug;
        if (wordsKind) wordsKind.value = data.words_kind;
        name.focus();
        name.select();
      });
    }

    function close() {
      box.hidden = true;
      if (existing) existing.hidden = false;
      name.value = "";
      slug.value = "";
    }

    var timer = null;
    name.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        fetchDefaults({ name: name.value }).then(function (data) { if (!data.error) slug.value = data.slug; });
      }, 250);
    });
    toggle.addEventListener("click", open);
    box.querySelector("[data-role=new-record-cancel]").addEventListener("click", close);
    showFields();
    return { showFields: showFields, reset: close };
  }

  /* A warning drawn where the selection is, not at the end of the page. */
  function warnAtSelection(warning) {
    var sel = window.getSelection();
    if (!warning) return;
    warning.hidden = false;
    warning.style.position = "fixed";
    var top = 80;
    var left = 20;
    if (sel && sel.rangeCount) {
      var rect = sel.getRangeAt(0).getBoundingClientRect();
      top = Math.min(Math.max(rect.bottom + 8, 8), window.innerHeight - 80);
      left = Math.min(Math.max(rect.left, 8), window.innerWidth - 360);
    }
    warning.style.top = top + "px";
    warning.style.left = left + "px";
    clearTimeout(warning._timer);
    warning._timer = setTimeout(function () { warning.hidden = true; }, 6000);
  }

  /* A cited span and its card point at each other. */
  function setupCards() {
    function flash(el) {
      el.classList.remove("flash");
      void el.offsetWidth;
      el.classList.add("flash");
    }
    document.querySelectorAll(".passage-text mark.cite[data-citations]").forEach(function (mark) {
      mark.addEventListener("click", function () {
        if (!window.getSelection().isCollapsed) return;
        var ids = mark.dataset.citations.split(" ").filter(Boolean);
        var row = mark.closest(".passage-row");
        if (!ids.length || !row) return;
        var details = row.querySelector("details[data-role=citations]");
        if (details) details.open = true;
        var card = row.querySelector('[data-citation="' + ids[0] + '"]');
        if (card) {
          card.scrollIntoView({ block: "nearest" });
          card.focus({ preventScroll: true });
          flash(card);
        }
      });
    });
    document.querySelectorAll("[data-role=show-span]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        var card = link.closest("[data-citation]");
        var row = link.closest(".passage-row");
        var id = card && card.dataset.citation;
        var mark = row && Array.prototype.find.call(row.querySelectorAll("mark[data-citations]"), function (m) {
          return m.dataset.citations.split(" ").indexOf(id) >= 0;
        });
        if (!mark) return;
        event.preventDefault();
        mark.scrollIntoView({ block: "center" });
        flash(mark);
      });
    });
  }

  function setupDialog(dialog) {
    var form = dialog.querySelector("form");
    var warning = document.getElementById("selection-warning");
    var newRecord = setupTargets(form);

    function open() {
      var selection = currentSelection();
      if (!selection) return;
      if (selection.crosses) {
        warnAtSelection(warning);
        return;
      }
      if (warning) warning.hidden = true;
      newRecord.reset();
      form.action = selection.el.dataset.citeUrl;
      /* Back to this very view of the reader (filters, page, size) once the citation is saved. */
      form.querySelector("[data-role=next]").value = window.location.pathname + window.location.search;
      fillForm(form, selection);
      newRecord.preset(selection.quote);
      dialog.querySelector("[data-role=passage-label]").textContent = "§" + selection.el.dataset.seq;
      dialog.querySelector("[data-role=preview]").textContent = "“" + selection.quote + "”";
      if (!dialog.open) dialog.showModal();
      form.querySelector("[data-role=target-search]").focus();
    }

    document.querySelectorAll(".passage-text").forEach(function (el) {
      el.addEventListener("mouseup", function () { setTimeout(open, 0); });
      el.addEventListener("keyup", function (event) {
        if (event.shiftKey) setTimeout(open, 0);
      });
    });
    dialog.querySelector("[data-role=cancel]").addEventListener("click", function () { dialog.close(); });
  }

  function setupCitePage(form) {
    /* On the citation page a new selection in the passage replaces the quote. */
    setupTargets(form);
    document.querySelectorAll(".passage-text").forEach(function (el) {
      el.addEventListener("mouseup", function () {
        setTimeout(function () {
          var selection = currentSelection();
          if (selection && !selection.crosses) fillForm(form, selection);
        }, 0);
      });
    });
  }

  function init() {
    setupCards();
    var dialog = document.getElementById("cite-dialog");
    if (dialog) setupDialog(dialog);
    else {
      var form = document.querySelector(".cite-page .citation-form");
      if (form) setupCitePage(form);
    }
  }

  window.archiveReader = { offsetsIn: offsetsIn };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
