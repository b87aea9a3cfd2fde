// Deciding a whole batch in chunks: each chunk of items is its own short request, so no request holds a worker
// for long, and the page shows how many of the items are decided (k of n) and, at the end, what each chunk said.
(function () {
  "use strict";

  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_match, name) {
      return String(values[name]);
    });
  }

  function field(form, name) {
    var found = form.querySelector("[name='" + name + "']");
    return found ? found.value : "";
  }

  document.querySelectorAll("button[data-chunked]").forEach(function (button) {
    var form = button.form;
    var panel = form && form.querySelector("[data-role=batch-progress]");
    if (!panel) return;
    button.addEventListener("click", function (event) {
      event.preventDefault();
      var keys = Array.prototype.map.call(form.querySelectorAll("input[name=batch-item]"), function (input) {
        return input.value;
      });
      var size = parseInt(panel.dataset.chunkSize, 10) || 50;
      var bar = panel.querySelector("[data-role=progress-bar]");
      var text = panel.querySelector("[data-role=progress-text]");
      var result = panel.querySelector("[data-role=progress-result]");
      var done = panel.querySelector("[data-role=progress-done]");
      form.querySelectorAll("button[type=submit]").forEach(function (other) { other.disabled = true; });
      panel.hidden = false;
      bar.max = keys.length;
      result.replaceChildren();

      function show(count) {
        bar.value = count;
        text.textContent = fill(panel.dataset.progressText, { done: count, total: keys.length });
      }

      function say(level, words) {
        var item = document.createElement("li");
        item.className = level;
        item.textContent = words;
        result.appendChild(item);
      }

      function finish() {
        done.hidden = false;
        done.focus();
      }

      function send(from) {
        if (from >= keys.length) {
          finish();
          return;
        }
        var chunk = keys.slice(from, from + size);
        var body = new FormData();
        body.append("csrfmiddlewaretoken", field(form, "csrfmiddlewaretoken"));
        body.append("action", button.value);
        body.append("batch_note", field(form, "batch_note"));
        body.append("query", field(form, "query"));
        body.append("chunk", "1");
        chunk.forEach(function (key) {
          body.append("batch-item", key);
          body.append("pin-" + key, field(form, "pin-" + key));
        });
        // The form's buttons are named "action": form.action would be them, not the address.
        fetch(form.getAttribute("action"), { method: "POST", body: body, credentials: "same-origin" })
          .then(function (response) {
            if (!response.ok) throw new Error(String(response.status));
            return response.json();
          })
          .then(function (answer) {
            (answer.messages || []).forEach(function (message) { say(message.level, message.text); });
            show(from + chunk.length);
            send(from + size);
          })
          .catch(function (error) {
            say("error", fill(panel.dataset.stoppedText, { status: error.message }));
            finish();
          });
      }

      show(0);
      send(0);
    });
  });
})();
