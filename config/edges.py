"""Forms, admin actions and management commands say an ``ApplicationError``'s message, never a traceback."""

from __future__ import annotations

from django.contrib import messages
from django.core.management.base import BaseCommand, CommandError

from kernel.errors import ApplicationError


def form_refusal(form, error: ApplicationError) -> None:
    """Show ``error`` on a bound ``form``: each field message beside its field, the rest above the form.

    The general message is kept even when fields are named too; a field the form does not have
    goes above the form rather than raising.
    """
    if str(error.message) or not error.fields:
        form.add_error(None, error.text)
    for field, message in error.fields.items():
        form.add_error(field if field in form.fields else None, str(message))


def admin_refusal(model_admin, request, error: ApplicationError, *, subject: object = "") -> None:
    """Show ``error`` on the admin page (prefixed with what it was about), as a warning."""
    prefix = f"{subject}: " if str(subject) else ""
    model_admin.message_user(request, prefix + error.text, messages.WARNING)


class ApplicationCommand(BaseCommand):
    """A command whose refusals end as ``CommandError`` (the message on stderr, exit status 1)."""

    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except ApplicationError as exc:
            raise CommandError("\n".join(exc.messages) or exc.code) from exc
