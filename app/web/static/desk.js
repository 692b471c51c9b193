// The web app's one script (CONTRACT.md section 23): every page works without it; it only adds
// - the browser's time zone, learned once: on a page marked data-learn-zone (the Focus page while
//   the account has no zone), it posts the zone in a form with the page's CSRF token, whose answer
//   is the same page again;
// - keys: "/" goes to the search field, "n" opens a new note, "e" edits (the links marked
//   data-key="n" and data-key="e" on the page), unless a field has the focus or a modifier is held.
(function () {
  "use strict";

  function learnZone() {
    var el = document.querySelector("[data-learn-zone]");
    var token = document.querySelector('input[name="csrf_token"]');
    if (!el || !token || !window.Intl) return;
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    if (!zone || zone === "UTC") return;
    try {
      if (sessionStorage.getItem("folio-zone-tried") === zone) return;
      sessionStorage.setItem("folio-zone-tried", zone);
    } catch (e) { /* no storage: try once per page load */ }
    // A plain form POST (the page's CSP allows forms to this origin, and no fetch): the answer
    // is a 303 back to the Focus page, now in the learned zone: the one reload.
    var form = document.createElement("form");
    form.method = "post";
    form.action = el.getAttribute("data-learn-zone");
    form.hidden = true;
    [["csrf_token", token.value], ["tz", zone], ["back", window.location.pathname + window.location.search]].forEach(function (kv) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = kv[0];
      input.value = kv[1];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
  }

  function typing(t) {
    if (!t) return false;
    var tag = t.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || t.isContentEditable;
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
    if (ev.key === "/") {
      var search = document.getElementById("site-search");
      if (search) { ev.preventDefault(); search.focus(); }
      return;
    }
    if (ev.key === "n" || ev.key === "e") {
      var link = document.querySelector('[data-key="' + ev.key + '"]');
      if (link) { ev.preventDefault(); link.click(); }
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", learnZone);
  } else {
    learnZone();
  }
})();
