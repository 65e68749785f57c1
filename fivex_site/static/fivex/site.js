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
    // A form sent back with errors: the first field in error has the focus (its error
    // is tied to it), not the page's top.
    var invalid = document.querySelector("main [aria-invalid=true]");
    if (invalid) { invalid.focus(); return; }
    // An error of the whole form (a wrong password): the reader lands on it.
    // The list keeps its role (a role on the <ul> itself orphaned its items: axe
    // "listitem"); it is read when it takes the focus.
    var formError = document.querySelector("main .errorlist.nonfield");
    if (formError) {
      formError.setAttribute("tabindex", "-1");
      formError.focus();
    }
  });
})();
