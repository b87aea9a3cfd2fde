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

  function setupTargets(form) {
    var typeSelect = form.querySelector("[name=target_type]");
    var search = form.querySelector("[data-role=target-search]");
    var select = form.querySelector("[name=target_id]");
    var url = form.dataset.targetsUrl;
    var timer = null;
    var serial = 0;

    function load() {
      var mine = ++serial;
      var query = "?type=" + encodeURIComponent(typeSelect.value) + "&q=" + encodeURIComponent(search.value.trim());
      fetch(url + query, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.json(); })
        .then(function (data) {
          if (mine !== serial || !data.results) return;
          var keep = select.value;
          select.innerHTML = "";
          var blank = document.createElement("option");
          blank.value = "";
          blank.textContent = "---------";
          select.appendChild(blank);
          data.results.forEach(function (item) {
            var option = document.createElement("option");
            option.value = item.id;
            option.textContent = item.text;
            select.appendChild(option);
          });
          if (data.results.length === 1) select.value = String(data.results[0].id);
          else if (keep) select.value = keep;
          form.dispatchEvent(new CustomEvent("targets-loaded", { detail: data.results.length }));
        });
    }

    function showAddLink() {
      form.querySelectorAll(".target-add").forEach(function (link) {
        link.hidden = link.dataset.type !== typeSelect.value;
      });
    }

    typeSelect.addEventListener("change", function () {
      select.value = "";
      showAddLink();
      load();
    });
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
  }

  function setupDialog(dialog) {
    var form = dialog.querySelector("form");
    var warning = document.getElementById("selection-warning");
    setupTargets(form);

    function open() {
      var selection = currentSelection();
      if (!selection) return;
      if (selection.crosses) {
        if (warning) warning.hidden = false;
        return;
      }
      if (warning) warning.hidden = true;
      form.action = selection.el.dataset.citeUrl;
      fillForm(form, selection);
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
