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

  // A page that opens with a message (an order sealed, a refusal) puts the reader on it,
  // so a screen reader reads it first instead of the page's top.
  document.addEventListener("DOMContentLoaded", function () {
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
