// recruitd's candidate interview page. The page works without this script (plain forms); the
// script moves focus to the screen's heading or question, counts characters, and keeps a form
// from being sent twice.
"use strict";
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var target = document.getElementById("answer-error") ? document.getElementById("answer") || document.getElementById("focus") : document.getElementById("focus");
    if (target) { target.focus({ preventScroll: false }); }

    var area = document.getElementById("answer");
    var count = document.getElementById("answer-count");
    if (area && count) {
      var max = parseInt(area.getAttribute("maxlength"), 10) || 5000;
      var update = function () {
        var left = max - area.value.length;
        count.textContent = left < 500 ? left + " characters left" : "";
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
