/* A control marked data-autosubmit sends its form when it changes (the language and fiction switches, filters). */
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var control = event.target;
    if (control instanceof Element && control.hasAttribute("data-autosubmit") && control.form) control.form.submit();
  });
})();
