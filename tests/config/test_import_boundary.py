"""Shared (public-schema) apps never import tenant apps: a public fact cannot depend on one company's data."""

from pathlib import Path

from django.conf import settings

from tests.config.architecture import BASE_DIR, forbidden_imports, local_apps


def _split():
    local = set(local_apps())
    shared = [app for app in settings.SHARED_APPS if app in local]
    tenant = [app for app in settings.TENANT_APPS if app in local and app not in shared]
    return shared, tenant


def test_shared_apps_never_import_tenant_apps():
    shared, tenant = _split()
    assert shared and tenant
    hits = forbidden_imports(package_dirs=[BASE_DIR / app for app in shared], forbidden=tenant)
    assert hits == []


def test_boundary_check_flags_a_shared_app_importing_a_tenant_app(tmp_path: Path):
    package = tmp_path / "tenders"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ok.py").write_text("from kernel.records import NoticeRecord\nimport django.db\n")
    (package / "bad.py").write_text("import os\nfrom notifications.models import SavedSearch\n")
    (package / "sneaky.py").write_text("from importlib import import_module\nimport_module('notifications.services')\n")
    (package / "model.py").write_text("from django.apps import apps\napps.get_model('notifications.TenderMatch')\n")
    hits = forbidden_imports(package_dirs=[package], forbidden=["notifications"])
    assert hits == [
        "tenders/bad.py:2 imports notifications.models",
        "tenders/model.py:2 imports notifications.TenderMatch",
        "tenders/sneaky.py:2 imports notifications.services",
    ]
