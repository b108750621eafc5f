"""The form to register a webhook; the URL rules themselves live in ``targets.py`` (checked by the service)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from notifications.models import SavedSearch


class WebhookCreateForm(forms.Form):
    saved_search = forms.ModelChoiceField(label=_("Suchprofil"), queryset=SavedSearch.objects.none())
    url = forms.CharField(
        label=_("Empfänger-URL"),
        max_length=2000,
        widget=forms.URLInput(attrs={"placeholder": "https://"}),
        help_text=_("Nur HTTPS; keine Zugangsdaten in der URL."),
    )

    def __init__(self, *args, saved_searches, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["saved_search"].queryset = saved_searches
