// Renders folio's API reference from its OpenAPI document with the vendored Redoc (redoc.standalone.js,
// loaded just before this file). The page names the document's URL and the style nonce of this
// response (the one its Content-Security-Policy allows): Redoc gives it to every <style> element
// it adds, so no inline style needs 'unsafe-inline'.
(function () {
  "use strict";
  var root = document.getElementById("redoc");
  var options = {
    nonce: root.getAttribute("data-nonce"),
    expandResponses: "200,201",
    requiredPropsFirst: true,
    hideHostname: false,
    theme: { colors: { primary: { main: "#3451d1" } } }
  };
  window.Redoc.init(root.getAttribute("data-spec-url"), options, root, function (err) {
    if (err) {
      // Redoc shows its own message in the page; say it where operators look too.
      console.warn("the API reference could not be rendered", err);
    }
  });
})();
