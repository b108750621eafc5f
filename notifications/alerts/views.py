"""One-click unsubscribe from alert mails (RFC 8058), per saved search or for the digest.

GET shows a confirmation page with a button and changes nothing (link scanners and
preview panes fetch links); POST switches the alert off. Mail clients send the POST
themselves without cookies or a CSRF token, so the view is CSRF-exempt: the signed
token in the URL is the authorisation, and it only ever switches mails off.
"""

from __future__ import annotations

from django.db import connection
from django.shortcuts import render
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from notifications.alerts.services import unsubscribe_apply, unsubscribe_describe
from notifications.alerts.unsubscribe import unsubscribe_target

TEMPLATE = "mail/unsubscribe.html"


@method_decorator(csrf_exempt, name="dispatch")
class UnsubscribeView(View):
    http_method_names = ["get", "post"]

    def _target(self, token: str):
        target = unsubscribe_target(token, schema_name=connection.schema_name)
        if target is None:
            return None, None
        name = unsubscribe_describe(target=target)
        return (target, name) if name is not None else (None, None)

    def get(self, request, token: str):
        target, name = self._target(token)
        if target is None:
            return render(request, TEMPLATE, {"state": "invalid"}, status=404)
        return render(request, TEMPLATE, {"state": "confirm", "scope": target.scope, "name": name})

    def post(self, request, token: str):
        target, _name = self._target(token)
        if target is None:
            return render(request, TEMPLATE, {"state": "invalid"}, status=404)
        name = unsubscribe_apply(target=target)
        return render(request, TEMPLATE, {"state": "done", "scope": target.scope, "name": name})
