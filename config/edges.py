"""Admin actions and management commands say an ``ApplicationError``'s message, never a traceback."""

from __future__ import annotations

from django.contrib import messages
from django.core.management.base import BaseCommand, CommandError

from config.errors import ApplicationError


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
