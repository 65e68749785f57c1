/* FiveX game pages: live countdowns, polling for the prompt to move on, and no double
   submissions. No dependencies. */
(function () {
  "use strict";

  function pad(n) { return n < 10 ? "0" + n : "" + n; }

  function describe(ms) {
    if (ms <= 0) { return "deadline passed — resolving soon"; }
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400); s -= d * 86400;
    var h = Math.floor(s / 3600); s -= h * 3600;
    var m = Math.floor(s / 60); s -= m * 60;
    var out = d > 0 ? d + " d " + h + " h " + pad(m) + " min" : h > 0 ? h + " h " + pad(m) + " min " + pad(s) + " s" : m + " min " + pad(s) + " s";
    return out + " left";
  }

  function tickCountdowns() {
    var now = Date.now();
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var t = Date.parse(el.getAttribute("data-countdown"));
      if (!isNaN(t)) { el.textContent = describe(t - now); el.classList.toggle("urgent", t - now < 15 * 60 * 1000); }
    });
  }

  // The player is busy with a form: a field has focus or differs from how the page
  // loaded it (typed text, a ticked box, another choice in a list). A reload would throw
  // that away, so the page shows the "moved on" banner instead.
  function editing() {
    var active = document.activeElement;
    var fields = document.querySelectorAll("form input, form textarea, form select");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      if (f.type === "hidden" || f.type === "submit") { continue; }
      if (f === active) { return true; }
      if (f.tagName === "TEXTAREA" && f.value.trim() !== "") { return true; }  // a kept draft
      if (f.tagName === "SELECT") {
        // Loaded with the option marked selected, or the first one when none is marked.
        var initial = 0;
        for (var j = 0; j < f.options.length; j++) {
          if (f.options[j].defaultSelected) { initial = j; break; }
        }
        if (f.options.length && f.selectedIndex !== initial) { return true; }
      } else if (f.type === "checkbox" || f.type === "radio") {
        if (f.checked !== f.defaultChecked) { return true; }
      } else if (f.value !== f.defaultValue) {
        return true;
      }
    }
    return false;
  }

  function poll(root) {
    var url = root.getAttribute("data-status-url");
    var version = root.getAttribute("data-version");
    var every = parseInt(root.getAttribute("data-poll-seconds") || "5", 10) * 1000;
    var banner = document.getElementById("moved-on");
    function once() {
      fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data && data.version !== version) {
            if (!editing()) { window.location.reload(); return; }
            if (banner) { banner.hidden = false; }
          }
          window.setTimeout(once, every);
        })
        .catch(function () { window.setTimeout(once, every * 2); });
    }
    window.setTimeout(once, every);
  }

  function guardForms() {
    document.querySelectorAll("form[method=post], form[method=POST]").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        if (form.dataset.submitted === "1") { ev.preventDefault(); return; }
        form.dataset.submitted = "1";
        // Disable after the browser has collected the form data.
        window.setTimeout(function () {
          form.querySelectorAll("button, input[type=submit]").forEach(function (b) {
            b.disabled = true; b.classList.add("busy");
          });
        }, 0);
      });
    });
  }

  function fillOrder() {
    document.querySelectorAll("[data-fill-order]").forEach(function (el) {
      el.addEventListener("click", function (ev) {
        var target = document.getElementById("id_text");
        if (target) { ev.preventDefault(); target.value = el.getAttribute("data-fill-order"); target.focus(); }
      });
    });
  }

  // <time datetime="..." data-local>: the reader's own time zone, the UTC text kept as
  // the tooltip (quiet hours are set in UTC).
  function localTimes() {
    if (!window.Intl || !Intl.DateTimeFormat) { return; }
    var format = new Intl.DateTimeFormat(undefined, {
      weekday: "short", day: "numeric", month: "short", year: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short"
    });
    document.querySelectorAll("time[datetime][data-local]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (isNaN(when.getTime())) { return; }
      el.title = el.textContent.trim();
      el.textContent = format.format(when);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    tickCountdowns();
    window.setInterval(tickCountdowns, 1000);
    var root = document.querySelector("[data-status-url]");
    if (root) { poll(root); }
    guardForms();
    fillOrder();
  });
})();
