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
