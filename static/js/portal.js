// htmx sends every field of a form, also the empty ones ("?q=&cpv=&plz=…"); the portal's URLs
// carry only what the user chose, so bookmarks and shared links stay readable.
document.addEventListener("htmx:configRequest", function (event) {
  if (event.detail.verb !== "get") {
    return;
  }
  var parameters = event.detail.parameters;
  var names = [];
  parameters.forEach(function (_value, name) {
    if (names.indexOf(name) === -1) {
      names.push(name);
    }
  });
  names.forEach(function (name) {
    var kept = parameters.getAll(name).filter(function (value) {
      return typeof value !== "string" || value.trim() !== "";
    });
    parameters.delete(name);
    kept.forEach(function (value) {
      parameters.append(name, value);
    });
  });
});

// Chip pickers (templates/portal/_chip_picker.html). Without JavaScript the input is the filter itself:
// codes, keys or names are typed and submitted. Here it becomes a search box outside the form (never
// submitted, its "term" goes to the suggestions only), and a chosen hit becomes a chip: a ticked
// checkbox named like the filter, so the URL stays "cpv=…&cpv=…". Unticking a chip removes it.
(function () {
  function pickerOf(element) {
    return element.closest("[data-picker]");
  }

  function inputOf(picker) {
    return picker.querySelector("[data-picker-input]");
  }

  function hitsOf(picker) {
    return Array.prototype.slice.call(picker.querySelectorAll("[data-picker-results] [data-pick-value]"));
  }

  function prepare(root) {
    root.querySelectorAll("[data-picker-input]").forEach(function (input) {
      if (input.dataset.pickerReady) {
        return;
      }
      input.dataset.pickerReady = "1";
      input.name = "term";
      input.setAttribute("form", "picker-detached");  // names no form: the search and the profile leave it out
    });
  }

  function choose(button) {
    var picker = pickerOf(button);
    var list = picker.querySelector("[data-chips]");
    var value = button.dataset.pickValue;
    var box = Array.prototype.find.call(list.querySelectorAll("input[type=checkbox]"), function (candidate) {
      return candidate.value === value;
    });
    if (!box) {
      var item = document.createElement("li");
      var chip = document.createElement("label");
      var text = document.createElement("span");
      box = document.createElement("input");
      box.type = "checkbox";
      box.name = picker.dataset.picker;
      box.value = value;
      chip.className = "chip";
      text.textContent = button.dataset.pickLabel;
      chip.append(box, text);
      item.append(chip);
      list.append(item);
    }
    var input = inputOf(picker);
    input.value = "";
    picker.querySelector("[data-picker-results]").replaceChildren();
    input.focus();
    if (!box.checked) {
      box.checked = true;
      // The search form and the profile preview listen for "change": a new chip is a new search.
      box.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }

  function removeChip(box) {
    var picker = pickerOf(box);
    // After the "change" has been handled (htmx reads the form synchronously), the chip goes.
    window.setTimeout(function () {
      var item = box.closest("li");
      if (item && !box.checked) {
        item.remove();
        inputOf(picker).focus();
      }
    }, 0);
  }

  document.addEventListener("DOMContentLoaded", function () {
    prepare(document);
  });
  document.addEventListener("htmx:load", function (event) {
    prepare(event.target);
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-picker] [data-pick-value]");
    if (button) {
      choose(button);
    }
  });

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches("[data-picker-input]")) {
      event.stopPropagation();  // a half-typed term is no change of the filters
    } else if (target.matches("[data-chips] input[type=checkbox]") && !target.checked) {
      removeChip(target);
    }
  }, true);

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var picker = target.closest ? pickerOf(target) : null;
    if (!picker) {
      return;
    }
    var hits = hitsOf(picker);
    var position = hits.indexOf(target);
    if (target.matches("[data-picker-input]")) {
      if (event.key === "Enter") {
        event.preventDefault();  // Enter takes the first hit
        if (hits.length) {
          choose(hits[0]);
        }
      } else if (event.key === "ArrowDown" && hits.length) {
        event.preventDefault();
        hits[0].focus();
      } else if (event.key === "Escape") {
        picker.querySelector("[data-picker-results]").replaceChildren();
      }
    } else if (position !== -1) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        var next = position + (event.key === "ArrowDown" ? 1 : -1);
        (next < 0 ? inputOf(picker) : hits[Math.min(next, hits.length - 1)]).focus();
      } else if (event.key === "Escape") {
        picker.querySelector("[data-picker-results]").replaceChildren();
        inputOf(picker).focus();
      }
    } else if (target.matches("[data-chips] input[type=checkbox]") && (event.key === "Backspace" || event.key === "Delete")) {
      event.preventDefault();
      target.checked = false;
      target.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
})();
