"""manage.py platform_init --host radar.example --operator-email ops@example.org [--prompt | --show-secret]

Production's first run (and every later deploy: idempotent). Reads TENDER_RADAR_PUBLIC_HOST and
TENDER_RADAR_OPERATOR_EMAIL when the options are not given.

The operator's one-time link is a password: it goes by mail only. Deploy logs keep a command's
output, so the link is printed only with ``--show-secret``, and a mail backend that writes mails to
the terminal (EMAIL_URL console://, the default outside production) counts as printing it.
When the mail cannot be sent the command fails (non-zero), so a deploy script does not carry on
with an operator who has no way in.

``--prompt`` asks on a terminal; without one (a pipe, ``docker compose run -T``) it reads the
password from the first line of standard input, so it never waits for input nobody can give.
"""

import getpass
import os
import sys

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.platform import (
    mail_prints_messages,
    operator_password_link,
    operator_password_link_send,
    operator_password_set,
    platform_init,
)
from config.edges import ApplicationCommand

NO_LINK_HELP = (
    "Set the password on a terminal instead: docker compose run --rm migrate python manage.py platform_init --prompt "
    "(or configure EMAIL_URL, see .env.example, and run again; --show-secret prints the link, for a terminal "
    "nobody records)."
)


class Command(ApplicationCommand):
    help = "Set up the operators' host, the first operator (password by one-time link or prompt) and beat schedules."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("TENDER_RADAR_PUBLIC_HOST", ""))
        parser.add_argument("--operator-email", default=os.environ.get("TENDER_RADAR_OPERATOR_EMAIL", ""))
        parser.add_argument(
            "--prompt", action="store_true", help="ask for the operator's password here instead of mailing a link"
        )
        parser.add_argument(
            "--show-secret",
            action="store_true",
            help="print the one-time link here instead of mailing it (it is a password: not in logs)",
        )

    def handle(self, *args, host: str, operator_email: str, prompt: bool, show_secret: bool = False, **options):
        if not host or not operator_email:
            raise CommandError(
                "Give --host and --operator-email (or set TENDER_RADAR_PUBLIC_HOST and TENDER_RADAR_OPERATOR_EMAIL)."
            )
        try:
            result = platform_init(host=host, operator_email=operator_email)
        except ValidationError as exc:  # Django's e-mail validator; refusals of our own: ApplicationCommand
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(f"Operators' console: host {result.host} (public schema).")
        self.stdout.write(
            f"Operator {result.operator_email}: " + ("created." if result.operator_created else "already there.")
        )
        # Schedules first: a password step that fails (no mail) must not leave the platform without them.
        call_command("setup_schedules", stdout=self.stdout)
        if result.operator_needs_password:
            self._password(result, prompt=prompt, show_secret=show_secret)

    def _password(self, result, *, prompt: bool, show_secret: bool) -> None:
        if prompt:
            if not sys.stdin.isatty():
                self._password_from_stdin(result)
                return
            for _attempt in range(3):
                first = getpass.getpass(f"Password for {result.operator_email}: ")
                if first != getpass.getpass("Again: "):
                    self.stderr.write("The two entries differ.")
                    continue
                try:
                    operator_password_set(operator_email=result.operator_email, password=first)
                except ValidationError as exc:
                    self.stderr.write(" ".join(exc.messages))
                    continue
                self.stdout.write(self.style.SUCCESS("Password set."))
                return
            raise CommandError("No password set.")
        if show_secret:
            link = operator_password_link(operator_email=result.operator_email, host=result.host)
            self.stdout.write(f"One-time link for {result.operator_email} (shown because of --show-secret): {link}")
            return
        if mail_prints_messages():
            raise CommandError(
                f"EMAIL_URL is console://, whose backend ({settings.EMAIL_BACKEND}) writes mails to this output, "
                f"so the one-time link for {result.operator_email} was not sent. " + NO_LINK_HELP
            )
        try:
            operator_password_link_send(operator_email=result.operator_email, host=result.host)
        except Exception as exc:  # mail not configured yet: say how to go on, never print the link
            raise CommandError(
                f"Could not mail the one-time password link to {result.operator_email} "
                f"({type(exc).__name__}: {exc}; EMAIL_URL points at {_mail_server()}). " + NO_LINK_HELP
            ) from exc
        self.stdout.write(
            f"A one-time link to choose the password was mailed to {result.operator_email} "
            "(the link is not shown here)."
        )

    def _password_from_stdin(self, result) -> None:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise CommandError(
                "--prompt has no terminal to ask on and read no password from standard input. Run it on a "
                "terminal (docker compose run --rm migrate python manage.py platform_init --prompt), or give "
                "the password as the first line of standard input (… run --rm -T migrate … --prompt < file)."
            )
        try:
            operator_password_set(operator_email=result.operator_email, password=password)
        except ValidationError as exc:
            raise CommandError("Password refused: " + " ".join(exc.messages)) from exc
        self.stdout.write(self.style.SUCCESS("Password set (read from standard input)."))


def _mail_server() -> str:
    """Where the mail went, for the error message: host and port, or the backend; never a user or password."""
    if settings.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend":
        scheme = "smtps" if settings.EMAIL_USE_SSL else "smtp"
        tls = ", STARTTLS" if settings.EMAIL_USE_TLS else ""
        return f"{scheme}://{settings.EMAIL_HOST}:{settings.EMAIL_PORT}{tls}"
    return settings.EMAIL_BACKEND
