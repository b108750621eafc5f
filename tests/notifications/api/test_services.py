"""API-key services: creation never stores the key, revocation keeps its first time, last use has minute resolution."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django_tenants.utils import schema_context

from kernel.errors import ApplicationError
from kernel.vocabulary.time_zone import BERLIN
from notifications.api.services import api_key_create, api_key_hash, api_key_revoke, api_key_touch
from notifications.models import ApiKey

T0 = datetime(2026, 9, 1, 8, 0, tzinfo=BERLIN)


@pytest.fixture
def alpha_admin(alpha):
    with schema_context(alpha.schema_name):
        yield get_user_model().objects.get(username=alpha.admin_email)


def test_keys_are_random_and_only_their_hash_is_kept(alpha_admin):
    first = api_key_create(name="eins", created_by=alpha_admin)
    second = api_key_create(name="zwei", created_by=alpha_admin)
    assert first.plaintext != second.plaintext
    stored = ApiKey.objects.get(pk=first.api_key.pk)
    assert stored.key_hash == api_key_hash(plaintext=first.plaintext) != first.plaintext
    assert stored.prefix == first.plaintext[:12]


@pytest.mark.parametrize("name", ["", "   ", "x" * 101])
def test_key_needs_a_sensible_name(alpha_admin, name):
    with pytest.raises(ApplicationError) as caught:
        api_key_create(name=name, created_by=alpha_admin)
    assert list(caught.value.fields) == ["name"] and caught.value.status == 400


def test_revocation_is_idempotent(alpha_admin):
    created = api_key_create(name="eins", created_by=alpha_admin)
    assert api_key_revoke(api_key_id=created.api_key.pk, now=T0).revoked_at == T0
    assert api_key_revoke(api_key_id=created.api_key.pk, now=T0 + timedelta(hours=1)).revoked_at == T0
    with pytest.raises(ApiKey.DoesNotExist):
        api_key_revoke(api_key_id=created.api_key.pk + 1000)


def test_touch_writes_once_per_minute_even_with_stale_copies(alpha_admin):
    api_key = api_key_create(name="eins", created_by=alpha_admin).api_key
    stale_copy = ApiKey.objects.get(pk=api_key.pk)  # another request that loaded the row before the first write
    assert api_key_touch(api_key=api_key, now=T0) is True
    assert api_key_touch(api_key=api_key, now=T0 + timedelta(seconds=30)) is False
    assert api_key_touch(api_key=stale_copy, now=T0 + timedelta(seconds=30)) is False  # the UPDATE's condition refuses
    assert api_key_touch(api_key=api_key, now=T0 + timedelta(seconds=61)) is True
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at == T0 + timedelta(seconds=61)
