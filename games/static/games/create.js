/* The game creation form: show the chosen ruleset's options only. */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("id_ruleset");
    if (!select) { return; }
    var seats = document.getElementById("id_seats_count");
    function sync(event) {
      document.querySelectorAll("[data-ruleset-options]").forEach(function (box) {
        box.hidden = box.getAttribute("data-ruleset-options") !== select.value;
        // The seat count's bounds are the chosen game's (the server checks them too).
        if (!box.hidden && seats && box.hasAttribute("data-max-players")) {
          seats.min = box.getAttribute("data-min-players");
          seats.max = box.getAttribute("data-max-players");
          // Brought into them when another game is chosen, never on loading the page:
          // a count the server refused stays as typed, beside the reason.
          if (!event) { return; }
          var n = parseInt(seats.value, 10);
          if (n > +seats.max) { seats.value = seats.max; }
          if (n < +seats.min) { seats.value = seats.min; }
        }
      });
    }
    select.addEventListener("change", sync);
    sync(null);
    // The tournament form: the chosen game's players per table describe the table
    // sizes field too (after Django's own help and error ids).
    var ranges = document.getElementById("table-ranges");
    var sizes = document.getElementById("id_table_sizes");
    if (ranges && sizes) {
      var described = (sizes.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
      sizes.setAttribute("aria-describedby", described.concat(["table-ranges"]).join(" "));
    }
    // The form's own key (the server opens the game a key made): the page is never
    // cached, so Back fetches it again with a new key, and Create made a second game.
    // Kept for this tab when the form is sent, put back when Back brings the form again.
    var key = document.querySelector('input[name="create_key"]');
    var form = key && key.form;
    if (key && form && window.sessionStorage) {
      var nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
      var saved = sessionStorage.getItem("fivex-create-key");
      if (saved && nav && nav.type === "back_forward") { key.value = saved; }
      form.addEventListener("submit", function () {
        sessionStorage.setItem("fivex-create-key", key.value);
      });
    }
  });
})();

/* The tournament form's tie-breaks: each row's arrows move it up or down the list; the
   ticked ones are posted in the list's order, which is the order they apply in. Each
   move is read out ("Buchholz: 2 of 6") by the status line after the list. */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var list = document.querySelector("[data-tiebreak-order]");
    if (!list) { return; }
    list.addEventListener("click", function (event) {
      var button = event.target.closest("[data-move]");
      if (!button) { return; }
      var row = button.closest("li");
      var up = button.getAttribute("data-move") === "up";
      var moved = false;
      if (up && row.previousElementSibling) {
        list.insertBefore(row, row.previousElementSibling);
        moved = true;
      } else if (!up && row.nextElementSibling) {
        list.insertBefore(row.nextElementSibling, row);
        moved = true;
      }
      button.focus();
      var said = document.querySelector("[data-tiebreak-said]");
      if (said) {
        var rows = Array.prototype.slice.call(list.children);
        var name = row.querySelector("label").textContent.trim();
        said.textContent = name + ": " + (rows.indexOf(row) + 1) + " of " + rows.length
          + (moved ? "" : (up ? ", already first" : ", already last"));
      }
    });
  });
})();
