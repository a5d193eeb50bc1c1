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
