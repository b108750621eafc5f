from django.conf import settings

from tests.config.architecture import local_apps, placement_errors


def test_every_app_is_placed_deliberately():
    errors = placement_errors(
        shared_apps=settings.SHARED_APPS,
        tenant_apps=settings.TENANT_APPS,
        both=settings.APPS_IN_BOTH_SCHEMAS,
        local=local_apps(),
        installed=settings.INSTALLED_APPS,
    )
    assert errors == []


def test_product_apps_sit_in_the_schema_the_product_promises():
    assert {"accounts", "sources", "tenders", "django_celery_beat"} <= set(settings.SHARED_APPS)
    assert "notifications" in settings.TENANT_APPS
    assert "notifications" not in settings.SHARED_APPS
    for shared_only in ("accounts", "sources", "tenders"):
        assert shared_only not in settings.TENANT_APPS


def test_local_apps_are_found():
    assert set(local_apps()) == {"accounts", "notifications", "sources", "tenders"}


def test_placement_check_flags_a_misplaced_app():
    errors = placement_errors(
        shared_apps=["accounts", "notifications", "django.contrib.auth"],
        tenant_apps=["notifications", "django.contrib.auth"],
        both=["django.contrib.auth"],
        local=["accounts", "notifications", "tenders"],
        installed=["accounts", "notifications", "tenders", "django.contrib.auth"],
    )
    assert any("'notifications'" in error and "found in 2" in error for error in errors)
    assert any("'tenders'" in error and "found in 0" in error for error in errors)
