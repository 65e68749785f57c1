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

/* Passkeys and security keys (allauth's mfa/js/webauthn.js): a WebAuthn dialog that fails or
   is cancelled is said on the page (allauth only logs it to the console), in the page's
   #webauthn-error, or in one made after the passkey button of the log-in page. */
(function () {
  "use strict";
  document.addEventListener("allauth.error", function (event) {
    var exception = event.detail && event.detail.exception;
    event.preventDefault();
    var box = document.getElementById("webauthn-error");
    if (!box) {
      var button = document.getElementById("passkey_login");
      if (!button) { return; }
      box = document.createElement("p");
      box.id = "webauthn-error";
      box.className = "message error";
      box.setAttribute("role", "alert");
      button.parentNode.insertBefore(box, button.nextSibling);
    }
    var cancelled = exception && (exception.name === "NotAllowedError" || exception.name === "AbortError");
    box.textContent = cancelled
      ? "The passkey or security key was not used (cancelled, or it took too long). Try again."
      : "Your browser could not use a passkey or security key here" +
        (exception && exception.message ? " (" + exception.message + ")" : "") + ".";
    box.hidden = false;
  });
})();
