// horizon's web view: the live refresh of a bee's page and the profile preview.
// Served as a file: the page's Content-Security-Policy forbids inline script.
"use strict";

function startLive() {
  const body = document.body;
  const eventsUrl = body.dataset.events;
  const liveUrl = body.dataset.live;
  if (!eventsUrl || !liveUrl || !window.EventSource) {
    return;
  }
  const state = document.getElementById("live-state");
  const counter = document.getElementById("refreshes");
  let refreshes = 0;
  const source = new EventSource(eventsUrl);
  source.addEventListener("open", () => { state.textContent = "on"; });
  source.addEventListener("error", () => { state.textContent = "reconnecting"; });
  source.addEventListener("changed", async () => {
    const response = await fetch(liveUrl, { cache: "no-store" });
    if (!response.ok) {
      return;
    }
    const holder = document.createElement("div");
    // The server escaped every text in this fragment; scripts in it never run.
    holder.innerHTML = await response.text();
    const fresh = holder.querySelector("#live");
    const current = document.getElementById("live");
    if (fresh && current) {
      current.replaceWith(fresh);
      refreshes += 1;
      counter.textContent = String(refreshes);
      body.dataset.refreshes = String(refreshes);
    }
  });
}

function startPreview() {
  const form = document.getElementById("preview");
  if (!form) {
    return;
  }
  const run = document.getElementById("preview-run");
  const cancel = document.getElementById("preview-cancel");
  const progress = document.getElementById("preview-progress");
  const result = document.getElementById("preview-result");
  let job = null;

  function show(report) {
    progress.dataset.state = report.state;
    if (report.error) {
      progress.textContent = report.state + ": " + report.error;
    } else if (report.state === "done") {
      progress.textContent = "done" + (report.cached ? " (cached)" : "") + ": " +
        report.done + " entries replayed";
    } else {
      progress.textContent = report.state + ": " + report.done + " / " + report.total;
    }
  }

  async function poll(id) {
    while (job === id) {
      const response = await fetch("/preview/" + encodeURIComponent(id), { cache: "no-store" });
      const report = await response.json();
      if (job !== id) {
        return;
      }
      show(report);
      if (report.state === "done") {
        result.innerHTML = report.html;
      }
      if (!["queued", "running"].includes(report.state)) {
        job = null;
        run.disabled = false;
        cancel.disabled = true;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    result.textContent = "";
    run.disabled = true;
    const response = await fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
    });
    const report = await response.json();
    if (!response.ok) {
      show({ state: "refused", error: report.error });
      run.disabled = false;
      return;
    }
    job = report.id;
    cancel.disabled = false;
    // The poll shows the state with the result: a cached preview is "done" at once, and
    // saying so before its view arrives would show an empty result as finished.
    poll(report.id);
  });

  cancel.addEventListener("click", async () => {
    const id = job;
    if (id === null) {
      return;
    }
    const response = await fetch("/preview/" + encodeURIComponent(id) + "/cancel",
      { method: "POST" });
    const report = await response.json();
    // The poll may have seen the job end meanwhile: this older report must not undo that.
    if (job === id) {
      show(report);
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  startLive();
  startPreview();
});
