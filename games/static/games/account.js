/* Account pages: offer this browser's time zone (settings page) and send it with the
   sign-up form, so a new player's emails are in its own time from the first one. */
(function () {
  "use strict";
  function browserZone() {
    try {
      return (window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone) || "";
    } catch (e) {
      return "";
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var zone = browserZone();
    if (!zone) { return; }
    var hidden = document.querySelector('input[type="hidden"][name="time_zone"]');
    if (hidden && !hidden.value) { hidden.value = zone; }
    var offer = document.getElementById("browser-zone");
    var select = document.getElementById("id_time_zone");
    if (!offer || !select) { return; }
    // An old name the browser reports ("Asia/Calcutta") offers the zone's name now.
    var aliases = document.getElementById("zone-aliases");
    if (aliases) {
      try { zone = JSON.parse(aliases.textContent)[zone] || zone; } catch (e) { /* as reported */ }
    }
    var known = Array.prototype.some.call(select.options, function (o) { return o.value === zone; });
    if (!known || select.value === zone) { return; }
    offer.querySelector("[data-browser-zone]").textContent = zone;
    offer.hidden = false;
    offer.querySelector("[data-use-browser-zone]").addEventListener("click", function () {
      select.value = zone;
      offer.hidden = true;
      select.focus();  // the button is gone: the choice it made has the focus
    });
  });
})();
