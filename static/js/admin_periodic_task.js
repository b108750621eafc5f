// Periodic task form (operator console): shows the chosen crontab in words under the field.
// django-celery-beat does this with an inline script, which the Content-Security-Policy blocks.
(function () {
  "use strict";
  var data = document.getElementById("readable-crontabs");
  var select = document.getElementById("id_crontab");
  if (!data || !select) {
    return;
  }
  var readable = JSON.parse(data.textContent);
  var help = document.querySelector(".field-crontab .help");
  var original = help ? help.textContent.trim() : "";
  var translation = document.querySelector(".field-crontab_translation");
  if (translation) {
    translation.style.display = "none"; // the read-only copy of what the help line now shows
  }
  function update() {
    if (!help) {
      return;
    }
    var words = readable[select.value];
    help.textContent = original;
    if (words) {
      help.appendChild(document.createElement("br"));
      help.appendChild(document.createTextNode("Bedeutung: " + words));
    }
  }
  select.addEventListener("change", update);
  update();
})();
