from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _

from accounts.roles import Role


class InviteForm(forms.Form):
    email = forms.EmailField(label=_("E-Mail-Adresse"))
    role = forms.ChoiceField(
        label=_("Rolle"),
        choices=[(Role.MEMBER.value, _("Mitglied")), (Role.ADMIN.value, _("Administrator"))],
        initial=Role.MEMBER.value,
    )


class TenantCreateForm(forms.Form):
    name = forms.CharField(label=_("Firmenname"), max_length=200)
    schema_name = forms.SlugField(label=_("Schema"), max_length=62, help_text=_("Kleinbuchstaben, Ziffern, _"))
    domain = forms.CharField(label=_("Domain"), max_length=253, help_text=_("z. B. firma.radar.example"))
    admin_email = forms.EmailField(label=_("E-Mail des ersten Administrators"))
    admin_password = forms.CharField(
        label=_("Passwort (leer: wird erzeugt)"), required=False, widget=forms.PasswordInput(render_value=False)
    )


class EmailAuthenticationForm(AuthenticationForm):
    """Users sign in with their e-mail address; the error must say so, not Django's "Benutzername"."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _("E-Mail-Adresse oder Passwort ist falsch. Bitte prüfen Sie beide Angaben."),
    }
