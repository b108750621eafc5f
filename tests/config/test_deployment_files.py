"""The shipped deployment files: .env.example reads the same in bash and docker compose, .env stays private,
the image carries its static files, and nothing serves before the migrate step succeeded."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# Unquoted values bash and compose both take literally (no word splitting, no expansion, no comment).
_PLAIN = re.compile(r"[A-Za-z0-9_.,:/@%+=?~-]*")
_SINGLE_QUOTED = re.compile(r"'([^']*)'")


def _assignments() -> dict[str, str]:
    """Name -> the value docker compose reads (single quotes: literal content; unquoted: as written)."""
    values = {}
    for number, line in enumerate((ROOT / ".env.example").read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, equals, raw = line.partition("=")
        assert equals and re.fullmatch(r"[A-Z][A-Z0-9_]*", name), f"line {number}: {line!r}"
        quoted = _SINGLE_QUOTED.fullmatch(raw)
        assert quoted or _PLAIN.fullmatch(raw), f"line {number}: quote {raw!r} in single quotes"
        values[name] = quoted.group(1) if quoted else raw
    return values


def test_env_example_sources_in_bash_to_the_values_compose_reads():
    expected = _assignments()
    script = "set -euo pipefail; set -a; . ./.env.example; set +a; " + "; ".join(
        f'printf "%s\\0" "${name}"' for name in expected
    )
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, env={"PATH": os.environ["PATH"]}, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()
    assert dict(zip(expected, result.stdout.decode().split("\0")[:-1], strict=True)) == expected
    assert expected["DEFAULT_FROM_EMAIL"] == "Tender Radar <radar@radar.example>"
    assert expected["EMAIL_URL"].startswith("smtp://")  # SMTP is the documented default


def test_env_is_ignored_by_git_and_kept_out_of_the_image():
    ignored = subprocess.run(["git", "check-ignore", "-q", ".env"], cwd=ROOT)
    assert ignored.returncode == 0, ".env must be in .gitignore"
    assert ".env" in (ROOT / ".dockerignore").read_text().split()


def test_the_image_collects_static_files_and_the_app_waits_for_the_migrate_step():
    dockerfile = (ROOT / "Dockerfile").read_text()
    copy_all, collect = dockerfile.index("COPY . ."), dockerfile.index("manage.py collectstatic --noinput")
    assert copy_all < collect < dockerfile.index("USER radar")  # every static file, in the image, before gunicorn
    assert "DJANGO_STATIC_ROOT" not in dockerfile  # collected where the settings serve from
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name in ("web", "worker-ingest", "worker-match", "worker-notify", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
    assert "migrate" not in services["migrate"]["depends_on"]
    assert "platform_init" in services["migrate"]["command"][-1]
