/* The review queue: one box selects every record the reviewer may decide on. */
(function () {
  "use strict";
  function init() {
    var all = document.querySelector("[data-role=select-all]");
    if (!all) return;
    all.addEventListener("change", function () {
      document.querySelectorAll("input[name=selected]").forEach(function (box) { box.checked = all.checked; });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
