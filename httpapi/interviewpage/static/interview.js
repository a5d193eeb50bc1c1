// recruitd's candidate interview page. The page works without this script (plain forms); the
// script moves focus to the screen's heading or question, counts characters, keeps a form from
// being sent twice, keeps the answer being typed in this browser so a reload loses nothing, and
// shows the deadline in the browser's time zone. Its texts come from the page (the catalogue).
"use strict";
// recruitdPage is what one part of the script hands another: the integrity signals measured so far,
// kept with a draft so that a restored draft carries how it was written.
var recruitdPage = { signals: null };
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var target = document.getElementById("answer-error") ? document.getElementById("answer") || document.getElementById("focus") : document.getElementById("focus");
    if (target) { target.focus({ preventScroll: false }); }

    var area = document.getElementById("answer");
    var count = document.getElementById("answer-count");
    if (area && count) {
      var max = parseInt(area.getAttribute("maxlength"), 10) || 5000;
      var text = count.getAttribute("data-text") || "{left}";
      var update = function () {
        var left = max - area.value.length;
        count.textContent = left < 500 ? text.replace("{left}", String(left)) : "";
      };
      area.addEventListener("input", update);
      update();
    }

    Array.prototype.forEach.call(document.querySelectorAll("form"), function (form) {
      form.addEventListener("submit", function (ev) {
        if (form.dataset.sent === "1") { ev.preventDefault(); return; }
        form.dataset.sent = "1";
        Array.prototype.forEach.call(form.querySelectorAll("button[type=submit]"), function (b) {
          b.disabled = true;
          b.setAttribute("aria-busy", "true");
        });
      });
    });
  });
})();

// Integrity signals (only when the company asked for them: the form then has #signals, and the
// start screen said so). Per question: characters pasted into the answer, time and times away
// from the page (hidden, unfocused), keys pressed and the active typing time (each gap counted
// up to 2 s). Sent with the answer as JSON (internal/integrity/pagesignal); never blocks it.
(function () {
  var field = document.getElementById("signals");
  if (!field) { return; }
  var s = { pastedChars: 0, pasteEvents: 0, hiddenMs: 0, hiddenCount: 0, blurMs: 0, blurCount: 0, keystrokes: 0, typingMs: 0, answerChars: 0 };
  recruitdPage.signals = s;
  var hiddenSince = 0, blurSince = 0, lastKey = 0;
  var now = function () { return Date.now(); };
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") { hiddenSince = now(); s.hiddenCount++; }
    else if (hiddenSince) { s.hiddenMs += now() - hiddenSince; hiddenSince = 0; }
  });
  window.addEventListener("blur", function () { blurSince = now(); s.blurCount++; });
  window.addEventListener("focus", function () { if (blurSince) { s.blurMs += now() - blurSince; blurSince = 0; } });
  document.addEventListener("DOMContentLoaded", function () {
    var area = document.getElementById("answer");
    if (area) {
      area.addEventListener("paste", function (ev) {
        var text = ev.clipboardData ? ev.clipboardData.getData("text") : "";
        if (text.length > 0) { s.pastedChars += text.length; s.pasteEvents++; }
      });
      area.addEventListener("keydown", function () {
        var t = now();
        if (lastKey) { s.typingMs += Math.min(t - lastKey, 2000); }
        lastKey = t;
        s.keystrokes++;
      });
    }
    var form = field.form;
    form.addEventListener("submit", function () {
      if (hiddenSince) { s.hiddenMs += now() - hiddenSince; hiddenSince = 0; }
      if (blurSince) { s.blurMs += now() - blurSince; blurSince = 0; }
      s.answerChars = area ? area.value.length : 0;
      field.value = JSON.stringify(s);
    }, true);
  });
})();

// Drafts: the answer being typed is kept in this browser's localStorage under the link's key (a
// digest of the token the page writes on <body data-link>, never the token) and the turn, so a
// reload or a closed tab loses nothing. Only that link's page reads it back. A draft is dropped
// once its turn is answered (the page shows a later turn), when the interview has ended on that
// link (<body data-ended>), and after drafts' maximum age.
(function () {
  var prefix = "recruitd.draft.";
  var maxAge = 14 * 24 * 3600 * 1000;
  var store = null;
  try { store = window.localStorage; store.getItem(prefix); } catch (e) { store = null; }
  if (!store) { return; }
  var keys = function () {
    var out = [];
    for (var i = 0; i < store.length; i++) {
      var k = store.key(i);
      if (k && k.indexOf(prefix) === 0) { out.push(k); }
    }
    return out;
  };
  var read = function (k) {
    try { return JSON.parse(store.getItem(k) || "null"); } catch (e) { return null; }
  };
  var forget = function (k) { try { store.removeItem(k); } catch (e) { /* storage refused */ } };
  document.addEventListener("DOMContentLoaded", function () {
    var now = Date.now();
    keys().forEach(function (k) {
      var d = read(k);
      if (!d || typeof d.at !== "number" || now - d.at > maxAge) { forget(k); }
    });
    var link = document.body.getAttribute("data-link");
    if (!link) { return; }
    var mine = prefix + link + ".";
    var area = document.getElementById("answer");
    var turn = document.querySelector("form.answer input[name=turn]");
    var current = area && turn ? mine + turn.value : "";
    keys().forEach(function (k) {
      if (k.indexOf(mine) === 0 && k !== current) { forget(k); }
    });
    if (!current || document.body.hasAttribute("data-ended")) { return; }
    var saved = read(current);
    if (saved && typeof saved.text === "string" && saved.text !== "" && area.value === "") {
      area.value = saved.text;
      var sig = recruitdPage.signals;
      if (sig && saved.signals && typeof saved.signals === "object") {
        Object.keys(sig).forEach(function (k) {
          var v = saved.signals[k];
          if (k !== "answerChars" && typeof v === "number" && isFinite(v) && v >= 0) { sig[k] += v; }
        });
      }
      area.dispatchEvent(new Event("input"));
      var note = document.getElementById("draft-restored");
      if (note) { note.textContent = note.getAttribute("data-text") || ""; }
    }
    area.addEventListener("input", function () {
      try {
        if (area.value === "") { store.removeItem(current); }
        else { store.setItem(current, JSON.stringify({ text: area.value, at: Date.now(), signals: recruitdPage.signals })); }
      } catch (e) { /* storage full or refused: the draft is only not kept */ }
    });
  });
})();

// The deadline: the page writes it in UTC, naming the zone; here it is rewritten in the
// browser's own zone, with that zone's name.
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    if (typeof Intl === "undefined" || !Intl.DateTimeFormat) { return; }
    Array.prototype.forEach.call(document.querySelectorAll("time.deadline[datetime]"), function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (isNaN(when.getTime())) { return; }
      try {
        var parts = {};
        new Intl.DateTimeFormat("en-GB", {
          weekday: "long", day: "numeric", month: "long", year: "numeric",
          hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short"
        }).formatToParts(when).forEach(function (p) { parts[p.type] = p.value; });
        el.textContent = parts.weekday + " " + parts.day + " " + parts.month + " " + parts.year + ", " +
          parts.hour + ":" + parts.minute + " " + parts.timeZoneName;
        var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
        if (zone) { el.setAttribute("title", zone); }
      } catch (e) { /* the page's UTC text stays */ }
    });
  });
})();
