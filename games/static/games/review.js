// A game's review pages: the arrow keys step to the previous and the next prompt (the
// page's links marked data-review-key), unless a form field has the focus or a modifier
// key is held (the browser's own shortcuts).
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && target.closest && target.closest("input, select, textarea, button, [contenteditable], [role=region]")) {
      return;
    }
    var link = document.querySelector('a[data-review-key="' + event.key + '"]');
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
})();
