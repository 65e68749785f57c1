/* FiveX game pages: live countdowns, polling for the prompt to move on, and no double
   submissions. No dependencies. */
(function () {
  "use strict";

  function pad(n) { return n < 10 ? "0" + n : "" + n; }

  function left(ms) {
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400); s -= d * 86400;
    var h = Math.floor(s / 3600); s -= h * 3600;
    var m = Math.floor(s / 60); s -= m * 60;
    var out = d > 0 ? d + " d " + h + " h " + pad(m) + " min" : h > 0 ? h + " h " + pad(m) + " min " + pad(s) + " s" : m + " min " + pad(s) + " s";
    return out + " left";
  }

  // After the deadline, a grace period (data-grace-until) still takes orders: the
  // countdown says so and counts to its end. Then it says what the sweep does: a missing
  // order is the seat's default one (the reader's own, data-default-mine, when it has
  // none), rather than a frozen "0 s" or a bare "resolving soon".
  function describe(ms, graceMs, mine) {
    if (ms > 0) { return left(ms); }
    if (graceMs > 0) { return "deadline passed — orders still taken: " + left(graceMs) + " in the grace period"; }
    return mine ? "deadline passed — your seat's default order will be played (resolving soon)"
      : "deadline passed — seats without an order get their default order (resolving soon)";
  }

  // The reader may stop the countdown (WCAG 2.2.2: content that updates by itself can be
  // stopped); the choice holds on every game page. Stopped, the deadline's date and time
  // stay shown and the counter is empty.
  var COUNTDOWN_KEY = "fivex-countdown";
  var stoppedHere = false;  // when the browser keeps nothing (storage blocked)

  function countdownStopped() {
    try { return window.localStorage.getItem(COUNTDOWN_KEY) === "off"; } catch (e) { return stoppedHere; }
  }

  function countdownToggles() {
    document.querySelectorAll("[data-countdown-toggle]").forEach(function (button) {
      function label() {
        button.textContent = countdownStopped() ? "Show the countdown" : "Stop the countdown";
      }
      label();
      button.hidden = false;
      button.addEventListener("click", function () {
        var stop = !countdownStopped();
        stoppedHere = stop;
        try { window.localStorage.setItem(COUNTDOWN_KEY, stop ? "off" : "on"); } catch (e) { /* this page only */ }
        label();
        tickCountdowns();
      });
    });
  }

  // Run ``change`` (text or a notice above the page's fields changing height) without
  // moving the field the reader is typing in or choosing with: the page scrolls by what
  // the change added above it (on a phone the held notice pushed the order box off the
  // screen, and the countdown's "deadline passed" line grew by two lines under the typing).
  function steady(change) {
    var active = document.activeElement;
    var field = active && active !== document.body && /^(TEXTAREA|INPUT|SELECT|BUTTON)$/.test(active.tagName) ? active : null;
    var before = field ? field.getBoundingClientRect().top : 0;
    change();
    if (field) {
      var moved = field.getBoundingClientRect().top - before;
      if (moved) { window.scrollBy(0, moved); }
    }
  }

  // data-countdown (and data-grace-until) is the moment to the millisecond, rounded up:
  // "deadline passed" never shows while the server still takes orders.
  function tickCountdowns() {
    var now = Date.now();
    var stopped = countdownStopped();
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      if (stopped) {
        if (el.textContent !== "") { el.textContent = ""; }
        el.classList.remove("urgent");
        return;
      }
      var t = Date.parse(el.getAttribute("data-countdown"));
      var grace = Date.parse(el.getAttribute("data-grace-until") || "");
      var graceMs = isNaN(grace) ? 0 : grace - now;
      if (!isNaN(t)) {
        var text = describe(t - now, graceMs, el.hasAttribute("data-default-mine"));
        if (el.textContent !== text) { steady(function () { el.textContent = text; }); }
        el.classList.toggle("urgent", (t - now > 0 ? t - now : graceMs) < 15 * 60 * 1000);
      }
    });
  }

  // The player is busy with a form: a field has focus or differs from how the page
  // loaded it (typed text, a ticked box, another choice in a list). A reload would throw
  // that away, so the page shows the "moved on" banner instead.
  function editing() {
    var active = document.activeElement;
    // A keyboard (or screen-reader) user is somewhere on the page: a reload would throw
    // them back to its top.
    if (active && active.matches && active.matches(":focus-visible") &&
        active.matches("a, button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])")) {
      return true;
    }
    var fields = document.querySelectorAll("form input, form textarea, form select");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      if (f.type === "hidden" || f.type === "submit") { continue; }
      if (f === active || fieldChanged(f)) { return true; }
    }
    return false;
  }

  // A form's field that differs from how the page loaded it.
  function fieldChanged(f) {
    if (f.tagName === "TEXTAREA" && f.value.trim() !== "") { return true; }  // a kept draft
    if (f.tagName === "SELECT") {
      // Loaded with the option marked selected, or the first one when none is marked.
      var initial = 0;
      for (var j = 0; j < f.options.length; j++) {
        if (f.options[j].defaultSelected) { initial = j; break; }
      }
      return f.options.length > 0 && f.selectedIndex !== initial;
    }
    if (f.type === "checkbox" || f.type === "radio") { return f.checked !== f.defaultChecked; }
    return f.value !== f.defaultValue;
  }

  // Another seat sealed its order: its "waiting" becomes "✓ sealed" in place (no reload
  // that would move the reader or a screen reader back to the page's top).
  function markSealed(ordered) {
    document.querySelectorAll("[data-seat-tick]").forEach(function (el) {
      var sealed = ordered.indexOf(el.getAttribute("data-seat-tick")) >= 0;
      var shown = el.querySelector(".tick") !== null;
      if (sealed === shown) { return; }
      var span = document.createElement("span");
      span.className = sealed ? "tick" : "waiting";
      if (sealed) { span.title = "order sealed"; }
      span.textContent = sealed ? "✓ sealed" : "no order yet";
      // Read out by the seats list's live region as "bob: ✓ sealed".
      var who = document.createElement("span");
      who.className = "visually-hidden";
      who.textContent = el.getAttribute("data-seat-tick") + ": ";
      el.replaceChildren(who, span);
    });
  }

  var UPDATED_KEY = "fivex-updated:" + window.location.pathname;
  // The reader's choice (every game page): "off" = never reload by itself, show the
  // "moved on" notice instead (a screen reader in browse mode has no focus to tell).
  var AUTO_KEY = "fivex-auto-update";

  function autoUpdate() {
    try { return window.localStorage.getItem(AUTO_KEY) !== "off"; } catch (e) { return true; }
  }

  function autoUpdateToggle() {
    var box = document.getElementById("auto-update");
    if (!box) { return; }
    box.checked = autoUpdate();
    box.addEventListener("change", function () {
      try { window.localStorage.setItem(AUTO_KEY, box.checked ? "on" : "off"); } catch (e) { /* kept for this page only */ }
    });
  }

  // The words for what made the page reload: stages are "status|prompt|deadline|seats".
  function whatChanged(before, after, data, mineChanged) {
    var was = before.split("|"), now = after.split("|");
    if (was[1] !== now[1] && data.prompt != null) {
      return "The page was updated: decision " + data.prompt + " is open.";
    }
    if (was[0] !== now[0]) {
      // The words the page shows for a status ("abandoned" reads "ended early").
      if (data.status === "abandoned") { return "The page was updated: the game was ended early."; }
      return "The page was updated: the game is " + data.status + ".";
    }
    if (mineChanged) { return "The page was updated: your order changed."; }
    if (was[2] !== now[2]) { return "The page was updated: the deadline changed."; }
    return "The page was updated: the seats changed.";
  }

  // After an automatic reload: the note written before it goes into the page's status
  // region, which screen readers announce (the reload itself says nothing).
  // ``also``: more to say (a kept draft put back).
  function announceUpdate(also) {
    var note = null;
    try {
      note = window.sessionStorage.getItem(UPDATED_KEY);
      window.sessionStorage.removeItem(UPDATED_KEY);
    } catch (e) { /* nothing kept */ }
    note = [note, also].filter(function (n) { return n; }).join(" ");
    var region = document.getElementById("page-updated");
    if (!note || !region) { return; }
    // After the page has settled: a live region written during loading is often not read.
    window.setTimeout(function () {
      region.textContent = note;
      if (keptAt) { region.appendChild(document.createTextNode(" ")); region.appendChild(goToKept(keptAt)); }
      region.hidden = false;
    }, 800);
  }

  // Where restoreDraft put a kept text or choice back (the order box, or the picker's first
  // field it changed): the note's link goes there, as that can be a screen or more below on
  // a phone.
  var keptAt = null;

  function goToKept(field) {
    var link = document.createElement("a");
    link.href = field.id ? "#" + field.id : "#prompt";
    link.id = "to-kept";
    link.textContent = field.tagName === "TEXTAREA" ? "Go to the order box" : "Go to the form";
    link.addEventListener("click", function (ev) {
      ev.preventDefault();
      field.scrollIntoView({ block: "center" });
      field.focus({ preventScroll: true });
    });
    return link;
  }

  // The order box's text, typed and not sent, when the page holds back its reload (the
  // game moved on under it), and a choice made in a picker (pickerChoice): kept for this
  // page in this tab, put back by the next load (the notice's link, a reload by hand), and
  // said so. Once: read, it is gone (unless the page has no order box for it: showUnsent).
  // Keyed by the seat's row, one per holder: whoever signs in next in this tab (a shared
  // computer), or takes the seat over, never gets it back.
  function draftKey() {
    var root = document.querySelector("[data-seat-row]");
    var row = root ? root.getAttribute("data-seat-row") : "";
    return row ? "fivex-draft:" + window.location.pathname + ":" + row : "";
  }

  function keepDraft(promptNumber) {
    window.addEventListener("pagehide", function () {
      if (!draftKey() || window.fivexLoggingOut) { return; }
      // Sent: the server keeps a refused text or choice itself (and a sealed one is no draft).
      // A picker's choice sent leaves the text typed in the box unsent: kept (the server
      // refills the box with the choice if it refuses it).
      var panel = document.getElementById("prompt");
      var sent = panel ? panel.querySelector("form[data-submitted='1']") : null;
      var box = document.getElementById("id_text");
      if (sent && (!box || sent.contains(box))) { return; }
      var text = box && box.value.trim() !== "" ? box.value : "";
      var choice = sent ? null : pickerChoice();
      if (!text && !choice) { return; }
      try {
        window.sessionStorage.setItem(draftKey(), JSON.stringify({ prompt: promptNumber, text: text, choice: choice }));
      } catch (e) { /* storage blocked: the notice did not promise it then */ }
    });
  }

  // The forms that offer the legal orders beside the order box: a list or one choice per
  // word (#legal-orders), 4X Dice's hits, 6x5's hex picker; those shown. Their fields, in
  // the page's order (as the player fills them).
  function pickerForms() {
    return ["legal-orders", "hit-picker", "hex-picker"].map(function (id) {
      return document.getElementById(id);
    }).filter(function (form) { return form && form.tagName === "FORM" && !form.hidden; });
  }

  function pickerFields(form) {
    return Array.prototype.filter.call(form.querySelectorAll("input, select"), function (f) {
      return f.type !== "hidden" && f.type !== "submit";
    });
  }

  // The choice made in a picker and not sent (null when none is changed): each field's
  // value, and the order it makes as the server reads the form.
  function pickerChoice() {
    var form = pickerForms().filter(function (f) { return pickerFields(f).some(fieldChanged); })[0];
    if (!form) { return null; }
    var data = new FormData(form);
    var order = data.get("text") || [data.get("verb") || ""].concat(data.getAll("word")).join(" ");
    return {
      form: form.id,
      order: String(order).trim(),
      fields: pickerFields(form).map(function (f) { return { value: f.value, checked: f.checked }; })
    };
  }

  // A kept choice back in its picker, field by field (a change event after each, so that
  // a picker offers what the fields before allow); only what the picker still offers.
  // False when the page has no such picker.
  function restoreChoice(choice) {
    var form = document.getElementById(choice.form);
    if (!form || pickerForms().indexOf(form) < 0) { return false; }
    var fields = pickerFields(form);
    if (fields.length !== choice.fields.length) { return false; }
    fields.forEach(function (f, i) {
      var was = choice.fields[i];
      if (f.type === "radio") {
        if (!was.checked || f.checked || f.disabled || f.value !== was.value) { return; }
        f.checked = true;
      } else if (f.type === "checkbox") {
        if (f.checked === was.checked || f.disabled) { return; }
        f.checked = was.checked;
      } else if (f.tagName === "SELECT") {
        var offered = Array.prototype.some.call(f.options, function (o) { return o.value === was.value; });
        if (f.value === was.value || !offered) { return; }
        f.value = was.value;
      } else {
        if (f.value === was.value) { return; }
        f.value = was.value;
      }
      f.dispatchEvent(new Event("change", { bubbles: true }));
    });
    return true;
  }

  // "Your text typed for prompt 1", "Your choice made for prompt 1", "Your text".
  function keptWords(choice, prompt) {
    return (choice ? "Your choice" : "Your text") + (prompt ? (choice ? " made" : " typed") + " for decision " + prompt : "");
  }

  // What keepDraft kept, back where it was; the words for the status region ("" when
  // nothing was kept). A choice for the page's prompt goes back into its picker; a choice
  // for a prompt resolved since comes back as its order's text in the order box (as the
  // server offers a refused choice). A box the server filled (a refused order) keeps its
  // own, and another text kept is shown to be copied, as below. A page with no order box (the seat has nothing to order now, the game is over or
  // paused) shows the text to be copied instead, until the player dismisses it.
  function restoreDraft(promptNumber) {
    var kept = null, key = draftKey();
    if (!key) { return ""; }
    try {
      kept = JSON.parse(window.sessionStorage.getItem(key) || "null");
      window.sessionStorage.removeItem(key);
    } catch (e) { return ""; }
    if (!kept) { return ""; }
    var said = [];
    var earlier = kept.prompt && kept.prompt !== promptNumber ? kept.prompt : "";
    var choice = kept.choice || null;
    if (choice && !earlier && restoreChoice(choice)) {
      said.push("Your choice was not sent: it is kept in the form below.");
      var form = document.getElementById(choice.form);
      keptAt = form ? (pickerFields(form).filter(function (f) { return !f.disabled; })[0] || null) : null;
      choice = null;
    }
    var text = kept.text || "";
    var asChoice = !text && !!choice && !!choice.order;
    if (asChoice) { text = choice.order; }
    if (!text) { return said.join(" "); }
    var box = document.getElementById("id_text");
    if (!box) {
      showUnsent(key, { prompt: kept.prompt, text: text, choice: asChoice ? { order: text } : null });
      return said.join(" ");
    }
    if (box.value !== "") {
      // The server filled the box (an order refused): it keeps that; a different text kept
      // is shown to copy rather than dropped.
      if (box.value.trim() !== text.trim()) {
        showUnsent(key, { prompt: kept.prompt, text: text, choice: asChoice ? { order: text } : null }, true);
      }
      return said.join(" ");
    }
    box.value = text;
    var details = box.closest("details");
    if (details) { details.open = true; }
    keptAt = box;
    said.push(keptWords(asChoice, earlier) + " was not sent: it is kept in the order box below.");
    return said.join(" ");
  }

  // An order refused comes back in the order box (as typed, or a picker's choice as its
  // text), which on a phone is a screen or more below the refusal at the top (under the
  // board of a 6x5 picker, 1,500 px): the refusal links to the box. Before restoreDraft,
  // which may fill the box too.
  function linkRefusalToBox() {
    var box = document.getElementById("id_text");
    var said = document.querySelector(".messages .message.error");
    if (!box || !said || box.value === "" || said.querySelector("a")) { return; }
    var link = goToKept(box);
    link.id = "to-refused";
    said.appendChild(document.createTextNode(" "));
    said.appendChild(link);
  }

  // The kept text in #draft-unsent (the seat's own page only): it stays kept, and shown
  // on every load, until "Dismiss" forgets it (or the player logs out). ``boxFull``: the
  // page has an order box, which the server filled with an order it refused.
  function showUnsent(key, kept, boxFull) {
    var notice = document.getElementById("draft-unsent");
    if (!notice) { return; }
    try { window.sessionStorage.setItem(key, JSON.stringify(kept)); } catch (e) { /* shown this once */ }
    document.getElementById("draft-unsent-said").textContent = keptWords(!!kept.choice, kept.prompt) + (boxFull
      ? " was not sent either: here it is to copy (the order box below holds the order just refused)."
      : " was not sent, and you have no order to give now.");
    document.getElementById("draft-unsent-text").value = kept.text;
    document.getElementById("draft-unsent-dismiss").addEventListener("click", function () {
      try { window.sessionStorage.removeItem(key); } catch (e) { /* nothing kept */ }
      notice.hidden = true;
      document.getElementById("draft-unsent-text").value = "";
      var heading = document.querySelector("h1");
      if (heading) { heading.setAttribute("tabindex", "-1"); heading.focus(); }
    });
    // After the page has settled, as announceUpdate: the status region reads it out.
    window.setTimeout(function () { notice.hidden = false; }, 800);
  }

  // What the "moved on" notice says when the page holds its reload: a prompt resolved
  // (and whether its deadline had passed), else what changed; and that the text typed is
  // kept. The page's countdown of a resolved prompt stops saying "resolving soon".
  // ``deadline``: the page's prompt's deadline as last seen (an extension moves it).
  function heldNote(before, after, data, mineChanged, deadline) {
    var was = before.split("|"), now = after.split("|");
    var said;
    if (was[1] !== now[1] && was[1] !== "" && data.status === "abandoned") {
      // Ended by its organizer (or cancelled) with the prompt open: nothing was resolved.
      said = "The game was ended early: decision " + was[1] + " was not resolved.";
      document.querySelectorAll("[data-countdown]").forEach(function (el) {
        el.removeAttribute("data-countdown");
        el.classList.remove("urgent");
        el.textContent = "the game was ended early";
      });
      document.querySelectorAll("[data-countdown-toggle]").forEach(function (button) {
        button.hidden = true;  // nothing left to count down
      });
    } else if (was[1] !== now[1] && was[1] !== "") {
      deadline = Date.parse(deadline);
      said = "Decision " + was[1] + " was resolved" + (!isNaN(deadline) && deadline <= Date.now() ? " (its deadline passed)" : "");
      said += data.prompt != null ? ": decision " + data.prompt + " is open now." : "; " + whatChanged(before, after, data, mineChanged).replace("The page was updated: ", "");
      document.querySelectorAll("[data-countdown]").forEach(function (el) {
        el.removeAttribute("data-countdown");
        el.classList.remove("urgent");
        el.textContent = "decision " + was[1] + " was resolved";
      });
      document.querySelectorAll("[data-countdown-toggle]").forEach(function (button) {
        button.hidden = true;  // nothing left to count down
      });
    } else {
      said = whatChanged(before, after, data, mineChanged).replace("The page was updated", "The game has moved on");
    }
    var box = document.getElementById("id_text");
    var typed = box && box.value.trim() !== "", chosen = pickerChoice() !== null;
    if (typed || chosen) {
      said += " " + (typed && chosen ? "Your text and your choice are" : typed ? "Your text is" : "Your choice is") +
        " kept below: it was not sent (reloading the page keeps it).";
    }
    return said;
  }

  function autoUpdateOffHere() {
    var box = document.getElementById("auto-update");
    return box ? !box.checked : false;
  }

  function poll(root) {
    var url = root.getAttribute("data-status-url");
    var version = root.getAttribute("data-version");
    var stage = root.getAttribute("data-stage");
    var mine = root.getAttribute("data-my-seat");
    var myOrder = root.getAttribute("data-my-order") || "";  // the start of its commitment
    var ordered = [];  // the seats the page shows as sealed
    document.querySelectorAll("[data-seat-tick]").forEach(function (el) {
      if (el.querySelector(".tick")) { ordered.push(el.getAttribute("data-seat-tick")); }
    });
    var every = parseInt(root.getAttribute("data-poll-seconds") || "5", 10) * 1000;
    var banner = document.getElementById("moved-on");
    var bannerSaid = document.getElementById("moved-on-said");
    var held = false;
    var deadline = stage.split("|")[2];  // of the page's prompt, as last seen
    function once() {
      fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data && String(data.prompt) === stage.split("|")[1]) { deadline = data.deadline || ""; }
          if (data && data.version !== version) {
            var now = [data.status, data.prompt == null ? "" : data.prompt, data.deadline || "",
                       data.seats].join("|");
            // The reader's own order sealed, replaced (another device, email) or withdrawn:
            // its panel must change, so the page reloads.
            var mineChanged = mine && ((data.sealed || {})[mine] || "") !== myOrder;
            if (now === stage && !mineChanged) {
              markSealed(data.ordered);  // the same prompt: only who has sealed changed
              version = data.version;
              ordered = data.ordered;
            } else if (!editing() && autoUpdate() && !autoUpdateOffHere()) {
              // Say what changed once the page has loaded again (announced there).
              try {
                window.sessionStorage.setItem(UPDATED_KEY, whatChanged(stage, now, data, mineChanged));
              } catch (e) { /* private mode: no note, the page still updates */ }
              window.location.reload(); return;
            } else if (banner) {
              steady(function () {
                if (bannerSaid) {
                  var said = heldNote(stage, now, data, mineChanged, deadline);
                  if (bannerSaid.textContent !== said) { bannerSaid.textContent = said; }  // read out once
                }
                banner.hidden = false;
              });
              if (!held) { held = true; keepDraft(stage.split("|")[1]); }
            }
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

  // 4X Dice's eXterminate: the rows of #hit-picker (seat, die, SHIP or ASTEROID, one row
  // per ship) compose the HIT order into the form's hidden "text"; the picker then stands
  // in for the long list of every hit order. Only dice that show something are offered
  // (#hit-targets), and each row offers only what the rows above it leave (a die showing
  // one ship is not offered a second SHIP hit); the server still checks the order.
  // Options are rebuilt only when the player changes a row, so editing() still sees the
  // page's own choices as unedited.
  function hitPicker() {
    var form = document.getElementById("hit-picker");
    var source = document.getElementById("hit-targets");
    if (!form || !source) { return; }
    var order = [], dice = {};  // the seats in the page's order (a name may look like a number)
    JSON.parse(source.textContent).forEach(function (t) { order.push(t.seat); dice[t.seat] = t.dice; });
    var text = form.querySelector("[data-hit-text]");
    var shown = document.getElementById("hit-order");
    var rows = form.querySelectorAll("[data-hit-row]");

    function part(row, name) { return row.querySelector('[data-hit="' + name + '"]'); }

    // items: [[value, label]]; an empty list leaves one disabled "—". True when the
    // select keeps its value (or had none); false when that value is no longer offered
    // (the browser then shows the first option).
    function setOptions(select, items) {
      var keep = select.value;
      select.textContent = "";
      (items.length ? items : [["", "\u2014"]]).forEach(function (item) {
        var option = document.createElement("option");
        option.value = item[0];
        option.textContent = item[1];
        select.appendChild(option);
      });
      var kept = items.some(function (item) { return item[0] === keep; });
      if (kept) { select.value = keep; }
      select.disabled = !items.length;
      return kept || keep === "";
    }

    // What is left to hit before row `index`: every die as the rows above leave it.
    function leftBefore(index) {
      var left = {};
      order.forEach(function (seat) {
        left[seat] = dice[seat].map(function (d) { return { n: d.n, ships: d.ships, asteroids: d.asteroids }; });
      });
      for (var i = 0; i < index; i++) {
        var seat = part(rows[i], "seat").value, die = part(rows[i], "die").value, kind = part(rows[i], "kind").value;
        var face = (left[seat] || []).filter(function (d) { return String(d.n) === die; })[0];
        if (face && kind === "SHIP" && face.ships > 0) { face.ships -= 1; }
        if (face && kind === "ASTEROID" && face.asteroids > 0) { face.asteroids -= 1; }
      }
      return left;
    }

    function showing(d) { return d.ships > 0 || d.asteroids > 0; }

    // "1: 2 ships, 1 asteroid", as pickers.die_showing says it.
    function dieShowing(d) {
      var shown = [[d.ships, "ship"], [d.asteroids, "asteroid"]].filter(function (c) { return c[0] > 0; })
        .map(function (c) { return c[0] + " " + c[1] + (c[0] === 1 ? "" : "s"); });
      return d.n + ": " + (shown.join(", ") || "nothing");
    }

    // Row `index` offers only what the rows above leave: its seats, dice and kinds. The
    // row being edited (`edited`) takes the first die and kind offered for a new seat or
    // die; a row below it whose chosen hit is no longer offered becomes "no hit", as the
    // server's hit_picker does, rather than a hit the player never picked.
    function refresh(index, edited) {
      var row = rows[index];
      var left = leftBefore(index);
      var kept = setOptions(part(row, "seat"), [["", "no hit"]].concat(order.filter(function (seat) {
        return left[seat].some(showing);
      }).map(function (seat) { return [seat, seat]; })));
      var list = (left[part(row, "seat").value] || []).filter(showing);
      kept = setOptions(part(row, "die"), list.map(function (d) {
        return [String(d.n), dieShowing(d)];
      })) && kept;
      var die = part(row, "die").value;
      var face = list.filter(function (d) { return String(d.n) === die; })[0];
      var kinds = [];
      if (face && face.ships > 0) { kinds.push(["SHIP", "SHIP"]); }
      if (face && face.asteroids > 0) { kinds.push(["ASTEROID", "ASTEROID"]); }
      kept = setOptions(part(row, "kind"), kinds) && kept;
      if (!kept && !edited) {
        part(row, "seat").value = "";
        setOptions(part(row, "die"), []);
        setOptions(part(row, "kind"), []);
      }
    }

    function compose() {
      var hits = [];
      rows.forEach(function (row) {
        var seat = part(row, "seat").value, die = part(row, "die").value, kind = part(row, "kind").value;
        if (seat && die && kind) { hits.push("HIT " + seat + " " + die + " " + kind); }
      });
      text.value = hits.length ? hits.join("; ") : "PASS";
      if (shown) { shown.textContent = text.value; }
    }

    // A change in one row can change what every row below it may still hit.
    rows.forEach(function (row, index) {
      row.addEventListener("change", function () {
        for (var i = index; i < rows.length; i++) { refresh(i, i === index); }
        compose();
      });
    });
    compose();
    var list = document.getElementById("legal-orders");
    if (list) { list.hidden = true; }
    form.hidden = false;
  }

  // 6x5's turn (#hex-picker): the action, the colour (only colours left in the reserve)
  // and a hex tapped on the board compose the order into the form's hidden "text". The
  // board (#hex-board) moves into the picker, so choices and taps sit together on a
  // phone; the hexes the choices so far may target (#hex-picker-data, from the legal
  // orders) are highlighted, and only they can be picked. The server still checks the
  // order. Choices live in real fields, so editing() sees a picked hex as an edit.
  function hexPicker() {
    var form = document.getElementById("hex-picker");
    var source = document.getElementById("hex-picker-data");
    var board = document.getElementById("hex-board");
    if (!form || !source || !board) { return; }
    var data = JSON.parse(source.textContent);
    var actions = {};
    data.actions.forEach(function (a) { actions[a.verb] = a; });
    var text = form.querySelector("[data-hex-text]");
    var shown = document.getElementById("hex-order");
    var hint = document.getElementById("hex-hint");
    var send = form.querySelector("button[type=submit]");
    var change = form.querySelector('[data-hex-pick="change"]');
    var first = form.querySelector('[data-hex-pick="hex"]');
    var second = form.querySelector('[data-hex-pick="hex2"]');
    var colourStep = form.querySelector('[data-hex-step="colour"]');
    var secondRow = form.querySelector("[data-hex-second]");
    var svg = board.querySelector("svg");
    var cells = board.querySelectorAll("[data-hex]");
    var reached = null;  // the hex the keyboard last reached (the board's one Tab stop)

    function checked(name) {
      var input = form.querySelector('[data-hex-pick="' + name + '"]:checked');
      return input ? input.value : "";
    }
    function has(list, key) { return !!list && list.indexOf(key) >= 0; }

    // Every hex some colour of action `a` may target (a hex may be tapped before the colour).
    function anyColour(a) {
      var all = [];
      Object.keys(a.targets).forEach(function (c) {
        a.targets[c].forEach(function (key) { if (!has(all, key)) { all.push(key); } });
      });
      return all;
    }

    // What a tap may pick now: {list: hexes, into: the field it fills}. With a colour to
    // choose, the hex may come first: every hex some colour can take is offered.
    function tappable(a) {
      if (!a) { return { list: [], into: null }; }
      if (a.by === "colour") {
        var colour = checked("colour");
        return { list: colour ? a.targets[colour] || [] : anyColour(a), into: first };
      }
      if (a.by === "hex") {
        if (first.value && !second.value) { return { list: a.targets[first.value] || [], into: second }; }
        return { list: Object.keys(a.targets), into: first };
      }
      return { list: a.targets[""] || [], into: first };
    }

    function compose(a) {
      var colour = checked("colour");
      var ready = !!a && !!first.value && (a.by !== "colour" || !!colour) && (a.by !== "hex" || !!second.value);
      var order = "";
      if (ready) {
        order = a.template.replace("{colour}", colour).replace("{hex}", first.value).replace("{hex2}", second.value);
        if (change && change.value) { order = "CHANGE " + change.value + "\n" + order; }
      }
      text.value = order;
      if (shown) { shown.textContent = order || "\u2014"; }
      send.disabled = !ready;
      return ready;
    }

    function refresh() {
      var a = actions[checked("action")] || null;
      var byColour = !!a && a.by === "colour";
      colourStep.hidden = !byColour;
      // A hex tapped first leaves only the colours that can go there.
      var hexFirst = byColour && !checked("colour") && has(anyColour(a), first.value);
      form.querySelectorAll('[data-hex-pick="colour"]').forEach(function (radio) {
        radio.disabled = byColour && (!a.targets[radio.value] || (hexFirst && !has(a.targets[radio.value], first.value)));
        if (radio.disabled && radio.checked) { radio.checked = false; }
      });
      secondRow.hidden = !(a && a.by === "hex");
      // A picked hex the choices no longer allow is dropped.
      var allowed = !a ? [] : a.by === "hex" ? Object.keys(a.targets) :
        byColour ? (checked("colour") ? a.targets[checked("colour")] : anyColour(a)) : a.targets[""];
      if (!has(allowed, first.value)) { first.value = ""; }
      if (!a || a.by !== "hex" || !has(a.targets[first.value], second.value)) { second.value = ""; }
      var now = tappable(a);
      var buttons = [], pressed = null;
      cells.forEach(function (g) {
        var key = g.getAttribute("data-hex");
        var target = has(now.list, key);
        g.classList.toggle("hex-target", target);
        var picked = key === first.value || key === second.value;
        g.classList.toggle("hex-picked", picked);
        // A picked hex stays a button (pressed): a keyboard user who just picked it keeps
        // the focus there instead of losing it to the page.
        if (target || picked) { g.setAttribute("tabindex", "-1"); g.setAttribute("role", "button"); buttons.push(g); }
        else { g.removeAttribute("tabindex"); g.removeAttribute("role"); }
        if (picked) { g.setAttribute("aria-pressed", "true"); pressed = pressed || g; } else { g.removeAttribute("aria-pressed"); }
      });
      // One Tab stop for the whole board (a roving tabindex): the picked hex, else the
      // one last reached, else the first; the arrow keys move between the others.
      var stop = pressed || (buttons.indexOf(reached) >= 0 ? reached : buttons[0]);
      if (stop) { stop.setAttribute("tabindex", "0"); }
      svg.classList.toggle("picking", now.list.length > 0);
      var ready = compose(a);
      if (hint) {
        var said = !a ? "Choose an action." :
          byColour && !checked("colour") && first.value ? "Choose a colour for " + first.value + "." :
          byColour && !checked("colour") ? "Choose a colour, or tap a highlighted hex first." :
          ready ? "Send the order, or tap another highlighted hex." :
          now.into === second ? "Tap the second hex (highlighted) on the board." :
          "Tap a highlighted hex on the board.";
        if (hint.textContent !== said) { hint.textContent = said; }  // a live region: say changes only
      }
    }

    function pick(key) {
      var now = tappable(actions[checked("action")] || null);
      if (!now.into || !has(now.list, key)) { return; }
      now.into.value = key;
      if (now.into === first) { second.value = ""; }
      refresh();
    }

    form.addEventListener("change", refresh);
    board.addEventListener("click", function (ev) {
      var g = ev.target.closest ? ev.target.closest("[data-hex]") : null;
      if (g) { pick(g.getAttribute("data-hex")); }
    });
    // The arrow keys move the focus to the nearest hex that can be picked in that direction
    // (the board's hexes that can be picked, or are picked, are the focusable ones).
    var arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    board.addEventListener("focusin", function (ev) {
      var g = ev.target.closest ? ev.target.closest('[data-hex][role="button"]') : null;
      if (g) { reached = g; }
    });
    function centre(el) {
      var r = el.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    }
    function nextHex(from, dir) {
      var c = centre(from), best = null, bestScore = Infinity;
      board.querySelectorAll('[data-hex][role="button"]').forEach(function (g) {
        if (g === from) { return; }
        var p = centre(g), dx = p[0] - c[0], dy = p[1] - c[1];
        var along = dx * dir[0] + dy * dir[1], across = Math.abs(dx * dir[1] - dy * dir[0]);
        if (along <= 1) { return; }  // not in that direction
        var score = along + 2 * across;
        if (score < bestScore) { bestScore = score; best = g; }
      });
      return best;
    }
    board.addEventListener("keydown", function (ev) {
      var g = ev.target.closest ? ev.target.closest("[data-hex]") : null;
      if (!g) { return; }
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); pick(g.getAttribute("data-hex")); return; }
      if (arrows[ev.key] && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
        var next = nextHex(g, arrows[ev.key]);
        ev.preventDefault();  // the box does not scroll instead
        if (next) {
          g.setAttribute("tabindex", "-1");
          next.setAttribute("tabindex", "0");
          reached = next;
          next.focus();
        }
      }
    });
    form.querySelector("[data-hex-board-slot]").appendChild(board);
    refresh();
    var list = document.getElementById("legal-orders");
    if (list) { list.hidden = true; }
    form.hidden = false;
    // A board wider than the screen scrolls in its box: start with the black tile centred.
    var box = board.querySelector(".hexmap-box");
    var black = data.black && board.querySelector('[data-hex="' + data.black + '"]');
    if (box && black && box.scrollWidth > box.clientWidth) {
      var at = black.getBoundingClientRect(), view = box.getBoundingClientRect();
      box.scrollLeft += at.left + at.width / 2 - (view.left + view.width / 2);
    }
  }

  // Organizer tools -> Replace: the tick box names the seat chosen and its player.
  function replaceConfirm() {
    var select = document.querySelector("[data-replace-seat]");
    var label = document.querySelector("[data-replace-confirm]");
    if (!select || !label) { return; }
    function update() {
      var option = select.options[select.selectedIndex];
      var text = option && option.getAttribute("data-confirm-label");
      if (text) { label.textContent = text; }
    }
    select.addEventListener("change", update);
    update();
  }

  // The organizer's invitation link: a read-only field selected whole on a click, and a
  // Copy button where the browser may write to the clipboard (shown only then).
  function copyButtons() {
    document.querySelectorAll("[data-select-all]").forEach(function (el) {
      el.addEventListener("focus", function () { el.select(); });
    });
    if (!navigator.clipboard || !window.isSecureContext) { return; }
    document.querySelectorAll("[data-copy]").forEach(function (button) {
      var id = button.getAttribute("data-copy");
      var field = document.getElementById(id);
      var said = document.querySelector('[data-copied="' + id + '"]');
      if (!field) { return; }
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(field.value).then(
          function () { if (said) { said.textContent = "Copied."; } },
          function () { field.focus(); if (said) { said.textContent = "Select it and copy it (Ctrl+C)."; } }
        );
      });
    });
  }

  // A log entry's recorded fields wider than a phone's screen scroll on their own: such a
  // cell becomes a named stop of its own for the keyboard (and only such a cell: every
  // entry a Tab stop would be a long walk). Checked again when the window changes size.
  function scrollableDetails() {
    document.querySelectorAll("table.log td.details").forEach(function (cell) {
      var wide = cell.scrollWidth > cell.clientWidth + 1;
      if (wide && !cell.hasAttribute("tabindex")) {
        var row = cell.closest("tr");
        var number = row ? row.querySelector("td.seq") : null;
        var seq = number ? number.textContent.trim() : "";
        cell.setAttribute("tabindex", "0");
        cell.setAttribute("role", "region");
        cell.setAttribute("aria-label", "Entry " + (seq || "") + ": recorded fields (scroll sideways)");
      } else if (!wide && cell.getAttribute("role") === "region") {
        cell.removeAttribute("tabindex");
        cell.removeAttribute("role");
        cell.removeAttribute("aria-label");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    scrollableDetails();
    window.addEventListener("resize", scrollableDetails);
    copyButtons();
    countdownToggles();
    tickCountdowns();
    window.setInterval(tickCountdowns, 1000);
    guardForms();
    fillOrder();
    hitPicker();
    hexPicker();
    replaceConfirm();
    var root = document.querySelector("[data-status-url]");
    linkRefusalToBox();
    if (root) {
      autoUpdateToggle();
      // After the pickers are built: a kept choice goes back into one.
      announceUpdate(restoreDraft(root.getAttribute("data-stage").split("|")[1]));
      poll(root);
    }
  });
})();
