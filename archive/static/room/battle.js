// The order of battle: buttons that open or close every unit at once.
(function () {
  "use strict";
  const all = (open) => () => document.querySelectorAll("details.unit").forEach((d) => { d.open = open; });
  const opener = document.getElementById("open-all");
  const closer = document.getElementById("close-all");
  if (opener) opener.addEventListener("click", all(true));
  if (closer) closer.addEventListener("click", all(false));
})();
