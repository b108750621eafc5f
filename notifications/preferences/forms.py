"""Forms of the settings pages. Password fields never render a stored value (write-only)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.utils.translation import gettext_lazy as _

from notifications.bid_dates import MAX_REMINDER_DAYS, MAX_REMINDERS
from notifications.models import DeliveryKind, DeliveryStatus, DigestInterval, SavedSearch, TlsMode

HOUR_CHOICES = [(hour, f"{hour:02d}:00") for hour in range(24)]
_PORT_VALIDATORS = [MinValueValidator(1), MaxValueValidator(65535)]
# Printable text only: the folder name goes into IMAP commands.
_FOLDER = RegexValidator(r"^[^\x00-\x1f\x7f]+$", _("Der Ordnername enthält ungültige Zeichen."))
# An RFC 8601 authserv-id as servers write it: a host name or similar token, no spaces, quotes or ";".
_AUTHSERV_ID = RegexValidator(r"^[A-Za-z0-9._-]+$", _("Bitte nur den Servernamen angeben, z. B. mx.ihre-firma.de."))


class PreferenceForm(forms.Form):
    language = forms.ChoiceField(label=_("Sprache"), choices=settings.LANGUAGES)
    digest_interval = forms.ChoiceField(label=_("Zusammenfassung per E-Mail"), choices=DigestInterval.choices)
    digest_hour = forms.TypedChoiceField(
        label=_("Uhrzeit der Zusammenfassung"),
        choices=HOUR_CHOICES,
        coerce=int,
        help_text=_("Deutsche Zeit (Europe/Berlin)."),
    )


class ReminderDaysForm(forms.Form):
    """Days before each deadline of one's board cards: a reminder mail and a calendar alarm each."""

    reminder_days = forms.CharField(
        label=_("Erinnern (Tage vor jeder Frist)"),
        required=False,
        max_length=40,
        help_text=_("Zum Beispiel „7, 3, 1“; leer: keine Erinnerungen. Gilt auch für die Alarme im Kalender."),
    )

    def clean_reminder_days(self) -> list[int]:
        text = self.cleaned_data["reminder_days"].replace(";", ",")
        parts = [part.strip() for part in text.split(",") if part.strip()]
        # The limits are the ones reminders are sent by (bid_dates.clean_reminder_days); here they are refused
        # with a message instead of being dropped silently.
        if (
            any(not part.isdigit() or not 1 <= int(part) <= MAX_REMINDER_DAYS for part in parts)
            or len(parts) > MAX_REMINDERS
        ):
            raise forms.ValidationError(_("Bis zu fünf ganze Zahlen von 1 bis 60, durch Kommas getrennt."))
        return [int(part) for part in parts]


class InstantAlertsForm(forms.Form):
    """Checked profiles get instant alerts; only the user's own profiles are offered."""

    saved_searches = forms.ModelMultipleChoiceField(
        label=_("Sofortmeldung für"),
        queryset=SavedSearch.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, own_searches, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["saved_searches"].queryset = own_searches


_KEEP_PASSWORD = _("Leer lassen, um das gespeicherte Passwort zu behalten.")


def _password_field() -> forms.CharField:
    """Write-only: ``render_value=False`` so neither the stored nor a just-typed password is echoed."""
    return forms.CharField(
        label=_("Passwort"),
        required=False,
        strip=False,
        max_length=500,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=_KEEP_PASSWORD,
    )


class SmtpSettingsForm(forms.Form):
    host = forms.CharField(label=_("SMTP-Server"), max_length=253)
    port = forms.IntegerField(label=_("Port"), initial=587, validators=_PORT_VALIDATORS)
    tls_mode = forms.ChoiceField(label=_("Verschlüsselung"), choices=TlsMode.choices, initial=TlsMode.STARTTLS)
    username = forms.CharField(label=_("Benutzername"), max_length=254, required=False)
    password = _password_field()
    clear_password = forms.BooleanField(label=_("Gespeichertes Passwort entfernen"), required=False)
    from_email = forms.EmailField(label=_("Absenderadresse"))


class MailboxSettingsForm(forms.Form):
    host = forms.CharField(label=_("IMAP-Server"), max_length=253)
    port = forms.IntegerField(label=_("Port"), initial=993, validators=_PORT_VALIDATORS)
    use_ssl = forms.BooleanField(label=_("SSL/TLS verwenden"), required=False, initial=True)
    username = forms.CharField(label=_("Benutzername"), max_length=254)
    password = _password_field()
    folder = forms.CharField(label=_("Ordner"), max_length=200, initial="INBOX", validators=[_FOLDER])
    is_active = forms.BooleanField(label=_("Postfach regelmäßig abrufen"), required=False, initial=True)
    authserv_id = forms.CharField(
        label=_("Kennung Ihres Mailservers (authserv-id)"),
        max_length=253,
        required=False,
        validators=[_AUTHSERV_ID],
        help_text=_(
            "Der Name, mit dem Ihr eingehender Mailserver seine Kopfzeilen „Authentication-Results“ beginnt "
            "(z. B. mx.ihre-firma.de). Nur Meldungen, deren Absender dieser Server per DKIM oder SPF bestätigt, "
            "führen zum Abruf beim Portal."
        ),
    )
    several_authentication_results = forms.BooleanField(
        label=_("Mein Mailserver schreibt mehrere Kopfzeilen „Authentication-Results“"),
        required=False,
        help_text=_(
            "Zum Beispiel je eine von OpenDKIM, OpenDMARC und der SPF-Prüfung. Sonst gilt eine Meldung mit mehr "
            "als einer solchen Kopfzeile Ihres Servers als gefälscht."
        ),
    )
    forwarders = forms.MultipleChoiceField(
        label=_("Weiterleitungsregeln"),
        required=False,
        choices=(),
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Absender, deren Meldungen per Weiterleitung ankommen und daher keine Absenderbestätigung tragen. "
            "Zur Auswahl stehen nur Absender, die der Betreiber für ein Vergabeportal freigegeben hat."
        ),
    )

    def __init__(self, *args, has_password: bool, forwarder_choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.has_password = has_password
        self.fields["forwarders"].choices = list(forwarder_choices)
        if not self.fields["forwarders"].choices:
            self.fields["forwarders"].help_text = _(
                "Derzeit hat der Betreiber keinen Weiterleitungsabsender freigegeben; Meldungen brauchen daher die "
                "Absenderbestätigung Ihres Mailservers."
            )
        if not has_password:
            self.fields["password"].help_text = ""

    def clean_password(self):
        password = self.cleaned_data.get("password", "")
        if not password and not self.has_password:
            raise forms.ValidationError(_("Bitte das Passwort des Postfachs angeben."))
        return password


class DeliveryFilterForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Status"), choices=[("", _("alle"))] + list(DeliveryStatus.choices), required=False
    )
    kind = forms.ChoiceField(label=_("Art"), choices=[("", _("alle"))] + list(DeliveryKind.choices), required=False)
