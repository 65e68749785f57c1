// Table talk: messages written after the page loaded are added to it as they come (the
// page asks talk.json every few seconds while it is visible), without a reload: what is
// being typed in the box stays. The author's label and the moment come written by the
// server; the text goes in as text (never as HTML). A message removed meanwhile is greyed
// out as the page would show it after a reload.
(function () {
  "use strict";
  // The newest message this browser has seen at a table (kept in the browser only): for a
  // visitor, the game page's "Table talk" link says "new messages" while there are newer ones.
  function seenKey(game) { return "fivex:talk-seen:" + game; }
  function seen(game) {
    try { return parseInt(window.localStorage.getItem(seenKey(game)) || "0", 10); } catch (e) { return 0; }
  }
  function markSeen(game, id) {
    try { if (id > seen(game)) { window.localStorage.setItem(seenKey(game), String(id)); } } catch (e) { /* storage off */ }
  }
  var link = document.getElementById("talk-link");
  // Signed in, the server says what is new (read on any device); a visitor's browser does.
  if (link && !link.hasAttribute("data-talk-server")) {
    var newest = parseInt(link.getAttribute("data-talk-last") || "0", 10);
    var flag = link.querySelector(".talk-new");
    if (flag && newest > seen(link.getAttribute("data-talk-game"))) { flag.hidden = false; }
  }

  var list = document.getElementById("talk-list");
  if (list && list.hasAttribute("data-poll")) {
    markSeen(list.getAttribute("data-talk-game"), parseInt(list.getAttribute("data-last") || "0", 10));
  }
  if (!list || !list.hasAttribute("data-poll")) { return; }
  var url = list.getAttribute("data-poll");
  var last = parseInt(list.getAttribute("data-last") || "0", 10);
  var every = parseInt(list.getAttribute("data-poll-seconds") || "10", 10) * 1000;
  var news = document.getElementById("talk-news");
  var busy = false;

  function item(m) {
    var li = document.createElement("li");
    li.className = "talk-message";
    li.id = "m" + m.id;
    var head = document.createElement("p");
    head.className = "small muted";
    var who = document.createElement("strong");
    who.textContent = m.label;
    var when = document.createElement("time");
    when.setAttribute("datetime", m.at);
    when.textContent = m.when;
    head.appendChild(who);
    head.appendChild(document.createTextNode(" · "));
    head.appendChild(when);
    li.appendChild(head);
    var body = document.createElement("p");
    if (m.text === null) {
      body.className = "muted";
      var em = document.createElement("em");
      em.textContent = "(" + (m.removed || "removed") + ")";
      body.appendChild(em);
    } else {
      body.className = "talk-text";
      m.text.split("\n").forEach(function (line, i) {
        if (i) { body.appendChild(document.createElement("br")); }
        body.appendChild(document.createTextNode(line));
      });
    }
    li.appendChild(body);
    return li;
  }

  // A message removed since the page showed it: its text goes, who removed it is said,
  // and its Remove button with it.
  function greyOut(r) {
    var li = document.getElementById("m" + r.id);
    if (!li || li.getAttribute("data-removed")) { return; }
    li.setAttribute("data-removed", "1");
    var text = li.querySelector(".talk-text");
    if (text) {
      var body = document.createElement("p");
      body.className = "muted";
      var em = document.createElement("em");
      em.textContent = "(" + (r.removed || "removed") + ")";
      body.appendChild(em);
      text.replaceWith(body);
    }
    var form = li.querySelector("form");
    if (form) { form.remove(); }
  }

  function firstShown() {
    var first = list.querySelector("li.talk-message");
    return first ? parseInt(first.id.slice(1), 10) || 0 : 0;
  }

  function poll() {
    if (busy || document.hidden) { return; }
    busy = true;
    var from = firstShown();
    fetch(url + "?after=" + last + (from ? "&from=" + from : ""), { headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        var added = 0;
        ((data && data.messages) || []).forEach(function (m) {
          if (m.id > last && !document.getElementById("m" + m.id)) {
            list.appendChild(item(m));
            added += 1;
          }
          last = Math.max(last, m.id);
        });
        ((data && data.removed) || []).forEach(greyOut);
        markSeen(list.getAttribute("data-talk-game"), last);
        if (added) {
          var empty = document.getElementById("talk-empty");
          if (empty) { empty.hidden = true; }
          if (news) { news.textContent = added + (added === 1 ? " new message." : " new messages."); }
        }
      })
      .catch(function () { /* the next poll tries again */ })
      .then(function () { busy = false; });
  }

  setInterval(poll, every);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { poll(); } });
})();
