// The key of this start of `gitgarden serve`: the address the printed token redirects to carries it
// in its fragment (which no server is sent); it is kept in this origin's storage (kept apart by
// port and address, unlike cookies) and added to every form when it is sent. A cookie another web
// app on this machine received is not enough to change anything: it never holds this key.
(function () {
  "use strict";
  var NAME = "gitgarden-key";
  var FIELD = "gitgarden_start_key";  // safety.KEY_FIELD
  var store = null;
  try { store = window.localStorage; } catch (e) { store = null; }  // kept across tabs of this origin
  var found = new RegExp("(?:^#|&)" + NAME + "=([0-9a-f]+)").exec(window.location.hash);
  if (found) {
    if (store) { store.setItem(NAME, found[1]); }
    // Out of the address bar and the history at once.
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || form.method.toLowerCase() !== "post") { return; }
    var field = form.querySelector("input[name='" + FIELD + "']");
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = FIELD;
      form.appendChild(field);
    }
    field.value = (store && store.getItem(NAME)) || "";
  }, true);
})();
