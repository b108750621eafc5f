"""Set everything up and run the product locally: web, worker and beat, stopped together by Ctrl-C.

Notices: when oeffentlichevergabe.de answers, the most recent closed days of DÖE (``--days``)
and TED for the same window, with progress bars; always the shipped real sample as well, so
merging and version history can be seen. The demo tenant's three saved searches are matched
once against what was loaded (the demo's initial matches), and the resulting alerts and a
digest go through the real SMTP path to a local mail catcher ("Postausgang (lokal)"), and the
first search's webhook events, signed, to a local webhook receiver ("Webhook-Empfang (lokal)").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone
from django_tenants.utils import schema_context
from tqdm import tqdm

from accounts.selectors import tenant_exists
from accounts.services import operator_ensure, public_tenant_ensure, tenant_create
from config.email_url import email_config
from config.embedded import embedded_database_stop
from notifications.demo.mailcatcher import mail_catcher_start
from notifications.demo.services import (
    DEMO_SCHEMA,
    demo_initial_alerts_deliver,
    demo_mail_route_save,
    demo_pipeline_seed,
    demo_searches_ensure,
    demo_webhook_ensure,
)
from notifications.demo.webhook_receiver import webhook_receiver_start
from sources.demo import (
    DEFAULT_DAYS,
    DemoLoad,
    demo_live_load,
    demo_sample_load,
    demo_state_save,
    doe_unreachable_reason,
)

DEMO_HOST = "demo.localhost"
DEMO_USER = "demo@demo.localhost"
DEMO_PASSWORD = "radar-demo-2026"  # noqa: S105 (demo only, printed to the user)
OPERATOR_USER = "operator@localhost"
OPERATOR_PASSWORD = "radar-operator-2026"  # noqa: S105 (demo only, printed to the user)
DEFAULT_MAIL_PORT = 8025
DEFAULT_WEBHOOK_PORT = 8026


class Command(BaseCommand):
    help = "Migrate, create the demo tenant and user, load sample notices, then run web + worker + beat."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--days", type=int, default=DEFAULT_DAYS, help="closed days of DÖE/TED to fetch (live)")
        parser.add_argument("--offline", action="store_true", help="do not try the network; load the sample only")
        parser.add_argument("--mail-port", type=int, default=DEFAULT_MAIL_PORT, help="local mail catcher port")
        parser.add_argument(
            "--webhook-port", type=int, default=DEFAULT_WEBHOOK_PORT, help="local webhook receiver port"
        )
        parser.add_argument("--setup-only", action="store_true", help="prepare data and exit without serving")

    def handle(
        self,
        *args,
        port: int,
        days: int,
        offline: bool,
        mail_port: int,
        webhook_port: int,
        setup_only: bool,
        **options,
    ):
        if not getattr(settings, "DEMO_ENABLED", False):
            raise CommandError("The demo runs with local settings only (config.settings.local), never in production.")
        if not 1 <= days <= 31:
            raise CommandError("--days must be between 1 and 31")
        # Links in the demo's mails lead to this runserver; children (worker, beat) inherit it.
        os.environ["PORTAL_URL_FORMAT"] = settings.PORTAL_URL_FORMAT = f"http://{{domain}}:{port}"
        try:
            catcher = mail_catcher_start(maildir=settings.LOCAL_OUTBOX_DIR, port=mail_port)
        except OSError as exc:
            raise CommandError(
                f"Cannot start the local mail catcher on 127.0.0.1:{mail_port}: {exc}. "
                "Choose another port with --mail-port."
            ) from exc
        self._platform_mail_to_catcher(mail_port)
        try:
            receiver = webhook_receiver_start(folder=settings.LOCAL_WEBHOOK_DIR, port=webhook_port)
        except OSError as exc:
            catcher.stop()
            raise CommandError(
                f"Cannot start the local webhook receiver on 127.0.0.1:{webhook_port}: {exc}. "
                "Choose another port with --webhook-port."
            ) from exc
        try:
            self._setup(days=days, offline=offline, mail_port=mail_port, webhook_port=webhook_port)
            url_tenant = f"http://{DEMO_HOST}:{port}/"
            url_public = f"http://localhost:{port}/admin/"
            self.stdout.write(
                self.style.SUCCESS(
                    "\nTender Radar demo is ready.\n"
                    f"  Portal (demo tenant): {url_tenant}  user {DEMO_USER}  password {DEMO_PASSWORD}\n"
                    f"  Local outbox:         {url_tenant}postausgang/  (mails caught on 127.0.0.1:{mail_port})\n"
                    f"  Webhooks received:    {url_tenant}webhook-empfang/  (receiver on 127.0.0.1:{webhook_port})\n"
                    f"  Operator console:     {url_public}  user {OPERATOR_USER}  password {OPERATOR_PASSWORD}\n"
                )
            )
            if not setup_only:
                self._serve(port)
        finally:
            receiver.stop()
            catcher.stop()

    def _setup(self, *, days: int, offline: bool, mail_port: int, webhook_port: int) -> None:
        self.stdout.write("Migrating shared and tenant schemas …")
        call_command("migrate_schemas", interactive=False, verbosity=0)
        public_tenant_ensure(domain="localhost")
        operator_ensure(email=OPERATOR_USER, password=OPERATOR_PASSWORD)
        if not tenant_exists(schema_name=DEMO_SCHEMA):
            self.stdout.write("Creating the demo tenant …")
            tenant_create(
                name="Demo GmbH",
                schema_name=DEMO_SCHEMA,
                domain=DEMO_HOST,
                admin_email=DEMO_USER,
                admin_password=DEMO_PASSWORD,
            )
        connection.set_schema_to_public()
        call_command("setup_schedules", verbosity=0)
        load_started = timezone.now()
        load = self._load_notices(days=days, offline=offline)
        demo_state_save(load)
        with schema_context(DEMO_SCHEMA):
            demo_mail_route_save(port=mail_port, from_email=f"radar@{DEMO_HOST}")
            searches = demo_searches_ensure(owner_email=DEMO_USER, active_since=load_started)
            demo_webhook_ensure(owner_email=DEMO_USER, url=f"http://127.0.0.1:{webhook_port}/tender-radar")
            self.stdout.write("Initial matching of the demo load (the demo's first matches) …")
            alerts = demo_initial_alerts_deliver(owner_email=DEMO_USER, tender_ids=load.tender_ids)
            pipeline = demo_pipeline_seed(owner_email=DEMO_USER, tender_ids=load.tender_ids)
        self.stdout.write(
            f"{len(searches)} saved searches, {len(alerts.match_ids)} new matches, "
            f"{alerts.sent} mails delivered to the local outbox, "
            f"{alerts.webhook_events_sent} webhook events to the local receiver"
            + (f", {alerts.failed} not delivered (see Einstellungen → Versandprotokoll)" if alerts.failed else "")
            + f"; {pipeline} tenders on the demo pipeline."
        )

    def _load_notices(self, *, days: int, offline: bool) -> DemoLoad:
        reason = "--offline" if offline else doe_unreachable_reason()
        live = None
        if not reason:
            self.stdout.write(f"oeffentlichevergabe.de answers: fetching the last {days} closed days of DÖE and TED …")
            live = demo_live_load(days=days, progress=lambda **kw: tqdm(file=self.stdout._out, **kw))
            for problem in live.problems:
                self.stderr.write(f"  {problem}")
        else:
            self.stdout.write(f"DÖE not reachable ({reason}); loading the shipped real sample (offline).")
        sample = demo_sample_load()
        self.stdout.write(f"Sample: {len(sample.tender_ids)} tenders, newest notice of {sample.sample_day}.")
        if live is None:
            return DemoLoad(**{**sample.__dict__, "offline_reason": reason})
        return DemoLoad(
            mode="live",
            tender_ids=tuple(sorted({*live.tender_ids, *sample.tender_ids})),
            run_ids=live.run_ids + sample.run_ids,
            first_day=live.first_day,
            last_day=live.last_day,
            sample_day=sample.sample_day,
            problems=live.problems + sample.problems,
        )

    def _platform_mail_to_catcher(self, mail_port: int) -> None:
        """The platform's own mails (invitations, password links) go to the catcher too, so the demo shows them
        in "Postausgang (lokal)" beside the tenant's; an EMAIL_URL the user set is left alone. Children inherit it."""
        if os.environ.get("EMAIL_URL", "console://") != "console://":
            return
        url = f"smtp://127.0.0.1:{mail_port}?starttls=off"
        os.environ["EMAIL_URL"] = url
        for name, value in email_config(url).settings().items():
            setattr(settings, name, value)

    def _serve(self, port: int) -> None:
        manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
        celery = [sys.executable, "-m", "celery", "-A", "config"]
        processes = {
            "web": manage + ["runserver", f"0.0.0.0:{port}", "--noreload"],
            "worker": celery + ["worker", "-Q", "ingest,match,notify", "-l", "info", "--concurrency", "2"],
            "beat": celery + ["beat", "-l", "info"],
        }
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        children = {
            name: subprocess.Popen(cmd, cwd=settings.BASE_DIR, env=env, start_new_session=True)
            for name, cmd in processes.items()
        }
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        self.stdout.write(
            f"web, worker and beat running (pids {[p.pid for p in children.values()]}); Ctrl-C stops all."
        )
        try:
            while not stopping:
                for name, child in children.items():
                    if child.poll() is not None:
                        self.stderr.write(f"{name} exited with {child.returncode}; stopping the others.")
                        stopping = True
                time.sleep(0.5)
        finally:
            for child in children.values():
                if child.poll() is None:
                    child.terminate()  # the child shuts down its own pool/threads
            deadline = time.monotonic() + 15
            for child in children.values():
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
            if not os.environ.get("DATABASE_URL"):
                embedded_database_stop(settings.LOCAL_DATA_DIR / "pgdata")
            self.stdout.write("Stopped.")
