// The run panel, live: poll the pass's status every half second and show its step, seconds and
// tokens; when it ends, reload so the server shows its outcome. Without this script the page
// refreshes itself every two seconds instead.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || live.getAttribute("data-done") === "yes") { return; }
  var url = live.getAttribute("data-status");
  var seen = 0;
  function text(id, value) { var el = document.getElementById(id); if (el) { el.textContent = value; } }
  function poll() {
    fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (!r.ok) { throw new Error(String(r.status)); }
      return r.json();
    }).then(function (s) {
      text("step", s.step);
      var r = s.reading;  // the model still reads the prompt: against the time its measured pace gives
      text("reading", r ? " · reading the prompt (" + r.seconds + " s" + (r.expected !== null ? " of about " + r.expected + " s" : "") + ")" : "");
      text("seconds", String(s.seconds));
      text("tokens", s.tokens.toLocaleString("en"));
      var list = document.getElementById("steps");
      if (list) {
        while (list.children.length < s.steps.length) {
          var step = s.steps[list.children.length];
          var li = document.createElement("li");
          var at = document.createElement("span");
          at.className = "at";
          at.textContent = step.at + " s";
          li.appendChild(at);
          li.appendChild(document.createTextNode(" " + step.words));
          list.appendChild(li);
        }
      }
      if (s.done) { window.location.reload(); return; }
      setTimeout(poll, 500);
    }).catch(function () { seen += 1; setTimeout(poll, Math.min(5000, 500 * seen)); });
  }
  poll();
})();
