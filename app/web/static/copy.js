// folio settings UI: the copy button beside a key shown once. Everything else works without
// JavaScript; without it the button stays hidden and the key can still be selected and copied.
(function () {
  "use strict";
  function select(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  function init() {
    var buttons = document.querySelectorAll("button[data-copy]");
    Array.prototype.forEach.call(buttons, function (btn) {
      var target = document.getElementById(btn.getAttribute("data-copy"));
      var status = document.getElementById(btn.getAttribute("data-status") || "");
      if (!target) { return; }
      btn.hidden = false;
      btn.addEventListener("click", function () {
        var text = target.textContent.trim();
        var done = function (ok) {
          btn.textContent = ok ? "Copied" : "Copy";
          if (status) { status.textContent = ok ? "The key is on your clipboard." : "Press Ctrl+C (⌘C on a Mac) to copy the selected key."; }
          if (ok) { setTimeout(function () { btn.textContent = "Copy"; }, 2500); }
        };
        var fallback = function () {
          select(target);
          var ok = false;
          try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
          done(ok);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
        } else {
          fallback();
        }
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
