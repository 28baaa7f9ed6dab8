// zo site: search in the page. Reads the records from the JSON block on search.html, filters
// them by words, type, status, tag and date, and lists them. Memory text only ever reaches the
// page as textContent, never as HTML. `search.html?q=word` (or `#q=word`) searches on load.
(function () {
  "use strict";
  var root = document.body.getAttribute("data-root") || "";
  var box = document.getElementById("zo-q");
  var data = document.getElementById("zo-data");
  if (box && !data) {
    box.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && box.value.trim()) {
        location.href = root + "search.html?q=" + encodeURIComponent(box.value.trim());
      }
    });
  }
  if (!data) return;
  var records = [];
  try { records = JSON.parse(data.textContent) || []; } catch (e) { records = []; }
  for (var i = 0; i < records.length; i++) {
    var r = records[i];
    r.hay = [r.id, r.t, r.ty, r.s, (r.g || []).join(" "), r.x].join("\n").toLowerCase();
  }
  var el = function (id) { return document.getElementById(id); };
  var q = el("f-q"), ty = el("f-type"), st = el("f-status"), tag = el("f-tag"), from = el("f-from"), to = el("f-to");
  var out = el("zo-results"), count = el("zo-count");
  function param(name) {
    var m = new RegExp("[?&#]" + name + "=([^&#]*)").exec(location.search + location.hash);
    if (!m) return "";
    try { return decodeURIComponent(m[1].replace(/\+/g, " ")); } catch (e) { return ""; }
  }
  function run() {
    var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    out.textContent = "";
    for (var i = 0; i < records.length; i++) {
      var r = records[i];
      if (ty.value && r.ty !== ty.value) continue;
      if (st.value && r.s !== st.value) continue;
      if (tag.value && (r.g || []).indexOf(tag.value) < 0) continue;
      if (from.value && (!r.d || r.d < from.value)) continue;
      if (to.value && (!r.d || r.d > to.value)) continue;
      var ok = true;
      for (var w = 0; w < words.length; w++) if (r.hay.indexOf(words[w]) < 0) { ok = false; break; }
      if (!ok) continue;
      shown++;
      var li = document.createElement("li");
      li.className = "hit st-" + r.s;
      var a = document.createElement(r.u ? "a" : "span");
      if (r.u) a.setAttribute("href", root + r.u);
      a.textContent = r.t || r.id;
      var meta = document.createElement("span");
      meta.className = "muted";
      meta.textContent = " " + [r.k, r.id, r.ty, r.s, r.d].filter(Boolean).join(" · ");
      li.appendChild(a);
      li.appendChild(meta);
      out.appendChild(li);
    }
    count.textContent = shown + " of " + records.length + " entries";
  }
  q.value = param("q");
  ty.value = param("type"); st.value = param("status"); tag.value = param("tag");
  from.value = param("from"); to.value = param("to");
  if (box) box.value = q.value;
  [q, ty, st, tag, from, to].forEach(function (c) { c.addEventListener("input", run); });
  if (box) box.addEventListener("input", function () { q.value = box.value; run(); });
  run();
})();
