"""The form to register a webhook; the URL rules themselves live in ``targets.py`` (checked by the service)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from notifications.models import SavedSearch
from notifications.webhooks.payloads import EVENT_CARD_DECIDED, EVENT_CARD_STAGE_CHANGED

BOARD_EVENT_CHOICES = [
    (EVENT_CARD_STAGE_CHANGED, _("Team-Board: Karte wechselt die Phase (card.stage_changed)")),
    (EVENT_CARD_DECIDED, _("Team-Board: Angebot oder kein Angebot entschieden (card.decided)")),
]


class WebhookCreateForm(forms.Form):
    saved_search = forms.ModelChoiceField(
        label=_("Suchprofil"),
        queryset=SavedSearch.objects.none(),
        required=False,
        empty_label=_("– keines (Ereignisse des Team-Boards) –"),
    )
    board_events = forms.MultipleChoiceField(
        label=_("Ereignisse des Team-Boards"),
        choices=BOARD_EVENT_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Nur ohne Suchprofil: ein Webhook für das ganze Board."),
    )
    url = forms.CharField(
        label=_("Empfänger-URL"),
        max_length=2000,
        widget=forms.URLInput(attrs={"placeholder": "https://"}),
        help_text=_("Nur HTTPS; keine Zugangsdaten in der URL."),
    )

    def __init__(self, *args, saved_searches, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["saved_search"].queryset = saved_searches
