// The dashboard's only script (routes/ui.ts serves it at /admin/ui/app.js): sends the control
// forms to the admin API (with the header the page names in data-ui-header) and reloads. No
// inline code: the page's Content-Security-Policy allows this file only.
"use strict";
const problem = document.getElementById("problem");
for (const form of document.querySelectorAll("form[data-api]")) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = Object.fromEntries(new FormData(form));
    const shape = form.dataset.shape;
    const body =
      shape === "canary" ? { version: fields.version, groups: { [fields.group]: Number(fields.weight) } }
      : shape === "approve" ? { version: fields.version, [fields.subject === "tool" ? "tools" : "offerings"]: { [fields.key]: fields.hash } }
      : fields;
    const method = form.dataset.method;
    const response = await fetch(form.dataset.api, {
      method,
      credentials: "same-origin",
      headers: { "content-type": "application/json", [document.body.dataset.uiHeader]: "1" },
      body: method === "DELETE" ? undefined : JSON.stringify(body),
    });
    if (response.ok) return location.reload();
    const answer = await response.json().catch(() => ({}));
    problem.textContent = (answer.error && answer.error.message) || "The gateway answered " + response.status;
    problem.hidden = false;
  });
}
// The weight box shows the selected canary's weight in the group typed, not a 0 to send by mistake.
for (const form of document.querySelectorAll("form[data-weights]")) {
  const weights = JSON.parse(form.dataset.weights);
  const follow = () => {
    const weight = (weights[form.elements.version.value] || {})[form.elements.group.value.trim()];
    form.elements.weight.value = String(weight === undefined ? 0 : weight);
  };
  form.elements.version.addEventListener("change", follow);
  form.elements.group.addEventListener("input", follow);
}
