"""The password hasher (accounts/hashers.py): Django's pbkdf2_sha256, byte for byte, and one per sign-in."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, get_hasher, make_password
from django.test import Client
from django_tenants.utils import schema_context

from accounts.hashers import PBKDF2SHA256Hasher
from config.settings import base as base_settings
from tests.fixtures.tenants import TENANT_PASSWORD


class FewIterations(PBKDF2SHA256Hasher):
    """The product's hasher at a test's speed: what is counted here is computations, not their length."""

    iterations = 1000


def test_same_hashes_as_djangos_own_hasher_both_ways():
    ours, djangos = PBKDF2SHA256Hasher(), PBKDF2PasswordHasher()
    for password in ("radar-demo-2026", "Umläute ß und €", ""):
        assert ours.encode(password, "saltsaltsalt", 2000) == djangos.encode(password, "saltsaltsalt", 2000)
    made_before = djangos.encode("Kr3ftig-genug-2026", djangos.salt())
    assert ours.verify("Kr3ftig-genug-2026", made_before) and not ours.verify("falsch", made_before)
    assert djangos.verify("Kr3ftig-genug-2026", ours.encode("Kr3ftig-genug-2026", ours.salt()))


def test_the_product_hashes_at_djangos_strength():
    # The settings every environment but the tests runs with (test settings swap in a fast hasher).
    assert base_settings.PASSWORD_HASHERS[0] == "accounts.hashers.PBKDF2SHA256Hasher"
    assert "django.contrib.auth.hashers.PBKDF2PasswordHasher" not in base_settings.PASSWORD_HASHERS
    assert PBKDF2SHA256Hasher.iterations == PBKDF2PasswordHasher.iterations >= 1_000_000
    assert PBKDF2SHA256Hasher.algorithm == PBKDF2PasswordHasher.algorithm == "pbkdf2_sha256"


def test_a_stored_django_hash_needs_no_upgrade(settings):
    settings.PASSWORD_HASHERS = ["accounts.hashers.PBKDF2SHA256Hasher"]
    djangos = PBKDF2PasswordHasher()
    stored = djangos.encode("Kr3ftig-genug-2026", djangos.salt())
    assert get_hasher().must_update(stored) is False
    assert check_password("Kr3ftig-genug-2026", stored)


@pytest.fixture
def counted(settings, monkeypatch):
    settings.PASSWORD_HASHERS = ["tests.accounts.test_hashers.FewIterations"]
    calls = []
    original = PBKDF2SHA256Hasher.encode

    def encode(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PBKDF2SHA256Hasher, "encode", encode)
    return calls


@pytest.mark.parametrize(
    ("username", "password"),
    [
        ("member@alpha.example", TENANT_PASSWORD),  # success
        ("member@alpha.example", "falsch-falsch"),  # wrong password
        ("niemand@alpha.example", "falsch-falsch"),  # unknown account: a dummy hash, the same time
    ],
)
def test_one_sign_in_computes_one_hash(alpha, counted, username, password):
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username="member@alpha.example")
        member.password = make_password(TENANT_PASSWORD)  # with the counted hasher, as stored by it
        member.save(update_fields=["password"])
    counted.clear()
    client = Client(HTTP_HOST=alpha.host)
    response = client.post("/konto/anmelden/", {"username": username, "password": password})
    assert response.status_code == (302 if password == TENANT_PASSWORD else 200)
    assert len(counted) == 1
