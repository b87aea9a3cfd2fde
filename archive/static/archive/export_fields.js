/* The export page's "select all" box: its template calls its handler inline, which the site's policy does not run. */
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (box instanceof Element && box.matches("input.select-toggle") && typeof window.onSelectToggleChange === "function") {
      window.onSelectToggleChange(event);
    }
  });
})();
