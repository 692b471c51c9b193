// The web app's one script (CONTRACT.md section 23): every page works without it; it only adds
// - the browser's time zone, learned once: on a page marked data-learn-zone (the Focus page while
//   the account has no zone), it posts the zone with the page's CSRF token and reloads once;
// - keys: "/" goes to the search field, "n" opens a new note, "e" edits (the links marked
//   data-key="n" and data-key="e" on the page), unless a field has the focus or a modifier is held.
(function () {
  "use strict";

  function learnZone() {
    var el = document.querySelector("[data-learn-zone]");
    var token = document.querySelector('input[name="csrf_token"]');
    if (!el || !token || !window.fetch || !window.Intl) return;
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    if (!zone || zone === "UTC") return;
    try {
      if (sessionStorage.getItem("folio-zone-tried") === zone) return;
      sessionStorage.setItem("folio-zone-tried", zone);
    } catch (e) { /* no storage: try once per page load */ }
    var body = new URLSearchParams();
    body.set("csrf_token", token.value);
    body.set("tz", zone);
    body.set("back", "/app");
    fetch(el.getAttribute("data-learn-zone"), {
      method: "POST", body: body, credentials: "same-origin", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" }
    }).then(function (r) {
      if (r.type === "opaqueredirect" || r.ok) window.location.reload();
    }).catch(function () { /* the page stays in UTC */ });
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
