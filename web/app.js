// Placeholder: shows /api/state and reloads the render on every generation.
"use strict";
function refresh() {
  fetch("api/state").then(r => r.json()).then(s => {
    document.getElementById("state").textContent = JSON.stringify(s, null, 2);
    document.getElementById("render").src = "api/render?w=512&h=512&_=" + s.generation;
  });
}
new EventSource("api/events").addEventListener("generation", refresh);
refresh();
