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


def test_the_image_compiles_the_project_once_so_its_processes_start_from_bytecode(tmp_path):
    """The image sets PYTHONDONTWRITEBYTECODE: its compile step is run here on a copy, and an import then reads
    every project module from bytecode (``python -v`` names the cached file), none from source."""
    import shutil
    import sys

    dockerfile = (ROOT / "Dockerfile").read_text()
    step = next(line for line in dockerfile.splitlines() if line.startswith("RUN python -m compileall"))
    assert dockerfile.index("COPY . .") < dockerfile.index(step) < dockerfile.index("USER radar")
    argv = step.removeprefix("RUN ").split()
    targets = [arg for arg in argv[3:] if not arg.startswith("-") and arg != "0"]
    assert {"kernel", "config", "accounts", "sources", "tenders", "notifications"} <= set(targets)
    for target in targets:
        source = ROOT / target
        if source.is_dir():
            shutil.copytree(source, tmp_path / target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tmp_path / target)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, env=env, check=True)
    imported = subprocess.run(
        [sys.executable, "-v", "-c", "import django; django.setup(); import sources.parsers.eforms, tenders.search"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    own = [line for line in imported.splitlines() if line.startswith("# code object from") and str(tmp_path) in line]
    # From source, Python says "code object from <path>.py"; from bytecode, "... from '<path>.pyc'".
    assert own and all(line.endswith(".pyc'") for line in own), [line for line in own if not line.endswith(".pyc'")]
