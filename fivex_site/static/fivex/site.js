// Every page: a form (or the button that submits it) with data-confirm asks first.
// (Not an inline onsubmit: the Content-Security-Policy allows only the site's own scripts.)
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var button = event.submitter;
    var question = (button && button.getAttribute("data-confirm")) || form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    // Logging out forgets the order texts a game page kept for this tab (game.js): the
    // next person at a shared computer finds nothing of them, not even in the browser's
    // storage. The flag stops the page that is being left from keeping its text again.
    if (form.hasAttribute("data-logout")) {
      window.fivexLoggingOut = true;
      try {
        for (var i = window.sessionStorage.length - 1; i >= 0; i--) {
          var key = window.sessionStorage.key(i);
          if (key && key.indexOf("fivex-draft:") === 0) { window.sessionStorage.removeItem(key); }
        }
      } catch (e) { /* storage blocked: nothing was kept */ }
    }
  }, true);

  // A box that scrolls (a wide table, the 6x5 board) is a keyboard stop, so that it can be
  // scrolled without a mouse (axe scrollable-region-focusable); a box whose content fits
  // is none (a Tab stop where nothing moves). Checked again when the page's size changes.
  function scrollStops() {
    var boxes = document.querySelectorAll(
      ".scroll[role=region], .scroll-x[role=region], .hexmap-box[role=region]");
    boxes.forEach(function (box) {
      var wide = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
      if (wide) {
        box.setAttribute("tabindex", "0");
      } else if (document.activeElement !== box) {
        box.removeAttribute("tabindex");
      }
    });
  }
  var resizing = null;
  function scrollStopsSoon() {
    window.clearTimeout(resizing);
    resizing = window.setTimeout(scrollStops, 150);
  }
  window.addEventListener("resize", scrollStopsSoon);
  window.addEventListener("load", scrollStops);
  document.addEventListener("htmx:afterSettle", scrollStops);
  // A box's content may change size without the window doing so (a late font, a board
  // drawn by a script): each box is watched too.
  document.addEventListener("DOMContentLoaded", function () {
    if (!window.ResizeObserver) { return; }
    var watch = new ResizeObserver(scrollStopsSoon);
    document.querySelectorAll(
      ".scroll[role=region], .scroll-x[role=region], .hexmap-box[role=region]"
    ).forEach(function (box) {
      watch.observe(box);
      if (box.firstElementChild) { watch.observe(box.firstElementChild); }
    });
  });

  // <time datetime="..." data-local>: the browser's time zone, the server's text (UTC) kept
  // as the tooltip, on every page (the moment tag marks them). Only for readers who chose
  // no zone of their own: a player's chosen zone (Account -> Time zone) is written by the
  // server and left as it is. data-style as the server's: "short" (no year), "seconds".
  function localTimes() {
    if (!window.Intl || !Intl.DateTimeFormat || !Intl.DateTimeFormat.prototype.formatToParts) { return; }
    // Written as the server writes every date ("Sun 29 Nov 2026, 17:05 CET"), in the
    // browser's zone: the browser's own locale gave "Sun, Nov 29, 2026, 05:05 PM" on one
    // page beside "Sun 29 Nov 2026, 17:05" on the next.
    var options = {
      weekday: "short", day: "numeric", month: "short", year: "numeric",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short"
    };
    var withSeconds = new Intl.DateTimeFormat("en-US", Object.assign({ second: "2-digit" }, options));
    var format = new Intl.DateTimeFormat("en-US", options);
    // The zone's abbreviation as the server writes it where English has one: en-US knows
    // America's (EST), en-GB Europe's (CET, BST); elsewhere both write an offset (GMT+9),
    // written then as the server writes a zone without an abbreviation (+09).
    var european = new Intl.DateTimeFormat("en-GB", { timeZoneName: "short" });
    function parts(formatter, when) {
      var p = {};
      formatter.formatToParts(when).forEach(function (part) { p[part.type] = part.value; });
      return p;
    }
    document.querySelectorAll("time[datetime][data-local]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (isNaN(when.getTime())) { return; }
      var style = el.getAttribute("data-style") || "";
      var p = parts(style === "seconds" ? withSeconds : format, when);
      if (/^GMT[+-]/.test(p.timeZoneName)) {
        var zone = parts(european, when).timeZoneName;
        if (zone && !/^GMT[+-]/.test(zone)) { p.timeZoneName = zone; }
      }
      // No abbreviation at all: the offset as the server (the time zone database) writes
      // it, "+14", "+0545", "-03", not "GMT+14" beside the server's "+14".
      var offset = /^GMT([+-])(\d{1,2})(?::(\d{2}))?$/.exec(p.timeZoneName);
      if (offset) {
        p.timeZoneName = offset[1] + ("0" + offset[2]).slice(-2) + (offset[3] && offset[3] !== "00" ? offset[3] : "");
      }
      el.title = el.textContent.trim();
      var clock = p.hour + ":" + p.minute + (style === "seconds" ? ":" + p.second : "");
      el.textContent = style === "date"
        ? p.day + " " + p.month + " " + p.year
        : style === "short"
        ? p.weekday + " " + p.day + " " + p.month + ", " + clock + " " + p.timeZoneName
        : style === "day"
          ? p.day + " " + p.month + " " + p.year + " " + clock + " " + p.timeZoneName
          : p.weekday + " " + p.day + " " + p.month + " " + p.year + ", " + clock + " " + p.timeZoneName;
    });
  }
  document.addEventListener("DOMContentLoaded", localTimes);

  // A page that opens with a message (an order sealed, a refusal) puts the reader on it,
  // so a screen reader reads it first instead of the page's top.
  document.addEventListener("DOMContentLoaded", function () {
    scrollStops();
    if (window.location.hash) { return; }
    var messages = document.querySelector(".messages-box");
    if (messages) {
      messages.setAttribute("tabindex", "-1");
      messages.focus();
      return;
    }
    // A form sent back with errors: the first error in the page's order has the focus,
    // not the page's top. A field in error (its error is tied to it), or an error of the
    // whole form (a wrong password, above the fields it marks invalid): the reader lands
    // on it. The list keeps its role (a role on the <ul> itself orphaned its items: axe
    // "listitem"); it is read when it takes the focus.
    var first = document.querySelector("main [aria-invalid=true], main .errorlist.nonfield");
    if (first) {
      if (!first.matches("[aria-invalid=true]")) { first.setAttribute("tabindex", "-1"); }
      first.focus();
    }
  });
})();
