/* The game creation form: show the chosen ruleset's options only. */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("id_ruleset");
    if (!select) { return; }
    function sync() {
      document.querySelectorAll("[data-ruleset-options]").forEach(function (box) {
        box.hidden = box.getAttribute("data-ruleset-options") !== select.value;
      });
    }
    select.addEventListener("change", sync);
    sync();
  });
})();
