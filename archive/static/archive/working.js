// A form whose action takes a while (a batch, a bulk decision) says it is working and is not sent twice.
(function () {
  "use strict";
  document.querySelectorAll("[data-role=working-form]").forEach(function (form) {
    form.addEventListener("submit", function () {
      var note = form.querySelector("[data-role=working]");
      if (note) {
        note.hidden = false;
      }
      window.setTimeout(function () {
        form.querySelectorAll("button[type=submit]").forEach(function (button) {
          button.disabled = true;
        });
      }, 0);
    });
  });
})();
