import hashlib
import hmac

from notifications.webhooks.signing import (
    new_signing_secret,
    parse_signature_header,
    signature_header,
    verify_signature,
)

BODY = '{"event":"tender.matched","tender":{"title":"Straßenbau Süd"}}'.encode()
SECRET = "whsec_test-secret"


def test_header_is_hmac_sha256_of_timestamp_dot_body():
    header = signature_header(secret=SECRET, body=BODY, timestamp=1_780_000_000)
    expected = hmac.new(SECRET.encode(), b"1780000000." + BODY, hashlib.sha256).hexdigest()
    assert header == f"t=1780000000,v1={expected}"


def test_valid_signature_within_tolerance_verifies():
    header = signature_header(secret=SECRET, body=BODY, timestamp=1_780_000_000)
    assert verify_signature(secret=SECRET, body=BODY, header=header, now=1_780_000_000 + 299)


def test_wrong_secret_changed_body_or_old_timestamp_fail():
    header = signature_header(secret=SECRET, body=BODY, timestamp=1_780_000_000)
    assert not verify_signature(secret="whsec_other", body=BODY, header=header, now=1_780_000_000)
    assert not verify_signature(secret=SECRET, body=BODY + b" ", header=header, now=1_780_000_000)
    assert not verify_signature(secret=SECRET, body=BODY, header=header, now=1_780_000_000 + 301)
    assert not verify_signature(secret=SECRET, body=BODY, header=header, now=1_780_000_000 - 301)


def test_a_replayed_signature_with_a_forged_timestamp_fails():
    header = signature_header(secret=SECRET, body=BODY, timestamp=1_780_000_000)
    forged = header.replace("t=1780000000", "t=1790000000")
    assert not verify_signature(secret=SECRET, body=BODY, header=forged, now=1_790_000_000)


def test_garbage_headers_are_rejected_not_crashing():
    for header in ("", "v1=abc", "t=abc,v1=def", "t=1780000000", "nonsense", "t=1780000000,v1="):
        assert not verify_signature(secret=SECRET, body=BODY, header=header, now=1_780_000_000)


def test_additional_signatures_and_unknown_schemes_are_tolerated():
    good = signature_header(secret=SECRET, body=BODY, timestamp=1_780_000_000).split(",")[1]
    header = f"t=1780000000,v0=legacy,v1=deadbeef,{good}"
    assert parse_signature_header(header)[1][-1] == good.removeprefix("v1=")
    assert verify_signature(secret=SECRET, body=BODY, header=header, now=1_780_000_000)


def test_secrets_are_random_and_long():
    first, second = new_signing_secret(), new_signing_secret()
    assert first != second
    assert first.startswith("whsec_") and len(first) >= 40
