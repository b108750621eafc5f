"""Set everything up and run the product locally: web, worker and beat, stopped together by Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connection

from accounts.models import Tenant
from accounts.services import operator_ensure, public_tenant_ensure, tenant_create
from config.embedded import embedded_database_stop

DEMO_SCHEMA = "demo"
DEMO_HOST = "demo.localhost"
DEMO_USER = "demo@demo.localhost"
DEMO_PASSWORD = "radar-demo-2026"  # noqa: S105 (demo only, printed to the user)
OPERATOR_USER = "operator@localhost"
OPERATOR_PASSWORD = "radar-operator-2026"  # noqa: S105 (demo only, printed to the user)


class Command(BaseCommand):
    help = "Migrate, create the demo tenant and user, load sample notices, then run web + worker + beat."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--setup-only", action="store_true", help="prepare data and exit without serving")

    def handle(self, *args, port: int, setup_only: bool, **options):
        self._setup()
        url_tenant = f"http://{DEMO_HOST}:{port}/"
        url_public = f"http://localhost:{port}/admin/"
        self.stdout.write(
            self.style.SUCCESS(
                "\nTender Radar demo is ready.\n"
                f"  Portal (demo tenant): {url_tenant}  user {DEMO_USER}  password {DEMO_PASSWORD}\n"
                f"  Operator console:     {url_public}  user {OPERATOR_USER}  password {OPERATOR_PASSWORD}\n"
            )
        )
        if setup_only:
            return
        self._serve(port)

    def _setup(self) -> None:
        self.stdout.write("Migrating shared and tenant schemas …")
        call_command("migrate_schemas", interactive=False, verbosity=0)
        public_tenant_ensure(domain="localhost")
        operator_ensure(email=OPERATOR_USER, password=OPERATOR_PASSWORD)
        if not Tenant.objects.filter(schema_name=DEMO_SCHEMA).exists():
            self.stdout.write("Creating the demo tenant …")
            tenant_create(
                name="Demo GmbH",
                schema_name=DEMO_SCHEMA,
                domain=DEMO_HOST,
                admin_email=DEMO_USER,
                admin_password=DEMO_PASSWORD,
            )
        connection.set_schema_to_public()
        for step in self._extra_setup_steps():
            step()

    def _extra_setup_steps(self):
        """Later setup (sample notices, schedules) registers itself here by command name."""
        from django.core.management import get_commands

        commands = get_commands()
        if "setup_schedules" in commands:
            yield lambda: call_command("setup_schedules", verbosity=0)
        if "load_demo_notices" in commands:
            yield lambda: call_command("load_demo_notices")

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
