"""Attacks on the partner API and the tender page, replayed through the real HTTP path.

Each answer must be ours: 400 (or 404) with a message that names the parameter and says what is
allowed, never a 500 and never a decoder's or interpreter's text. API-key guessing is counted
against the presented key and the client address, never against the key's public prefix.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django_tenants.utils import schema_context
from rest_framework import exceptions

from kernel.vocabulary.time_zone import BERLIN
from notifications.api.errors import api_exception_handler
from notifications.api.services import PREFIX_LENGTH, api_key_create
from notifications.models import SavedSearch, TenderMatch
from tenders.filters import FilterError
from tenders.highlighting import tender_highlights
from tests.factories.records import NoticeRecordFactory
from tests.notifications.api.conftest import ingest

pytestmark = pytest.mark.django_db

LISTS = ["/api/v1/tenders/", "/api/v1/saved-searches/", "/api/v1/matches/"]
SEARCHES = "/api/v1/saved-searches/"
T0 = datetime(2026, 9, 2, 8, 0, tzinfo=BERLIN)
# What an answer must never carry: the JSON decoder's, Python's or DRF's own wording.
INTERNALS = ("Expecting", "line 1", "char ", "JSON parse error", "Error", "recursion", "codec", "list", "dict", "str")


def _cursor(querystring: str) -> str:
    return base64.b64encode(querystring.encode()).decode()


def _assert_no_internals(response) -> None:
    text = json.dumps(response.json(), ensure_ascii=False)
    assert not [word for word in INTERNALS if word in text], text


# --- F7: page sizes and cursors -----------------------------------------------------------------


@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize("page_size", ["²", "١٢", "0", "201", "-1", "1.5", " 5", "5\x00", "9" * 30])
def test_a_page_size_that_is_no_plain_number_is_400_on_every_list(alpha_api, path, page_size):
    response = alpha_api.get(path, {"page_size": page_size})
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["fields"]["page_size"] == ["Eine ganze Zahl von 1 bis 200."]


@pytest.fixture
def two_matches(alpha) -> None:
    tender_ids = ingest(NoticeRecordFactory(), NoticeRecordFactory())
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username=alpha.member_email)
        search = SavedSearch.objects.create(owner=member, name="eigen", filters={}, active_since=T0)
        for hours, tender_id in enumerate(tender_ids):
            TenderMatch.objects.create(saved_search=search, tender_id=tender_id, matched_at=T0 + timedelta(hours=hours))


@pytest.mark.parametrize(
    "cursor",
    [
        _cursor("p=x&o=1"),  # the attack: a position that is no time
        _cursor("p=2026-13-45 08:00:00+00:00"),
        _cursor("p=2026-09-02 08:00:00"),  # no offset: not a cursor we wrote
        _cursor("p=2026-09-02 08:00:00+00:00\x00"),
        _cursor("p=0001-01-01 00:00:00+14:00"),
        _cursor("o=-1"),
        _cursor("r=²"),
        "!!!",
        "w6Q=",  # base64 of a non-ASCII byte sequence
    ],
)
def test_a_forged_cursor_is_400(alpha_api, two_matches, cursor):
    response = alpha_api.get("/api/v1/matches/", {"cursor": cursor})
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["fields"] == {"cursor": ["Ungültiger Cursor."]}


def test_the_cursor_the_api_wrote_still_pages(alpha_api, two_matches):
    first = alpha_api.get("/api/v1/matches/", {"page_size": "1"}).json()
    second = alpha_api.get(first["next"]).json()
    assert len(first["results"]) == len(second["results"]) == 1
    assert first["results"][0]["tender"]["id"] != second["results"][0]["tender"]["id"]


# --- F7 and F10: request bodies -------------------------------------------------------------------


@pytest.fixture
def own_search_path(alpha_api) -> str:
    created = alpha_api.post(SEARCHES, {"name": "Dach", "filters": {"q": "Dach"}})
    assert created.status_code == 201, created.content
    return f"{SEARCHES}{created.json()['id']}/"


def _send(caller, method: str, path: str, body: bytes, content_type: str = "application/json"):
    # generic(): the bytes as given, whatever charset the content type claims.
    return caller.client.generic(method.upper(), path, body, content_type=content_type)


@pytest.mark.parametrize("depth", [5000, 40])
@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_a_body_nested_deeper_than_any_input_is_400(alpha_api, own_search_path, method, depth):
    path = SEARCHES if method == "post" else own_search_path
    body = ('{"name": "Tief", "filters": ' + "[" * depth + "]" * depth + "}").encode()
    response = _send(alpha_api, method, path, body)
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "parse_error"
    assert error["message"] == "Der Inhalt ist zu tief verschachtelt (höchstens 20 Ebenen)."
    _assert_no_internals(response)


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"{", "application/json"),
        (b"{'name': 'Dach'}", "application/json"),
        (b'{"name": "Dach", "filters": {"q": "Dach"}} trailing', "application/json"),
        (b'{"name": NaN}', "application/json"),
        (b"\xff\xfe\x00", "application/json"),
        (b'{"name": "Dach"}', "application/json; charset=rot13"),  # a codec, but not a text encoding
        ('{"name": "Dächer"}'.encode(), "application/json; charset=utf-16"),
    ],
)
@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_a_broken_json_body_gets_our_message_not_the_decoders(alpha_api, own_search_path, method, body, content_type):
    path = SEARCHES if method == "post" else own_search_path
    response = _send(alpha_api, method, path, body, content_type)
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "parse_error"
    assert error["message"] == "Der Inhalt ist kein gültiges JSON (UTF-8)."
    _assert_no_internals(response)


@pytest.mark.parametrize("body", [[], "Dach", 42])
def test_a_body_that_is_no_object_gets_our_message_not_a_type_name(alpha_api, body):
    response = _send(alpha_api, "post", SEARCHES, json.dumps(body).encode())
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["message"] == "Erwartet wird ein JSON-Objekt mit den Feldern des Suchprofils."
    _assert_no_internals(response)


def test_a_form_body_is_refused_as_unsupported(alpha_api):
    # The API reads JSON only: no multipart parser (and its error texts) behind a partner endpoint.
    response = alpha_api.client.post(SEARCHES, {"name": "Dach"})
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_a_parse_error_of_any_parser_answers_our_message():
    # DRF's own parsers (form, multipart) put their exception text into ParseError.
    leaked = exceptions.ParseError("JSON parse error - Expecting value: line 1 column 1 (char 0)")
    response = api_exception_handler(leaked, {})
    assert response.status_code == 400
    assert response.data == {
        "error": {"code": "parse_error", "message": "Der Inhalt ist kein gültiges JSON (UTF-8).", "fields": {}}
    }


# --- F7: the tender page's highlighting -----------------------------------------------------------


@pytest.fixture
def tender_id(db) -> int:
    return ingest(NoticeRecordFactory(title="Dachsanierung Grundschule"))[0]


@pytest.mark.parametrize(
    ("q", "message"),
    [
        ("Dach\x00x", "Enthält unzulässige Steuerzeichen"),
        ("Dach\x1b[2J", "Enthält unzulässige Steuerzeichen"),
        ("x" * 301, "Zu lang: höchstens 300 Zeichen."),
    ],
)
def test_the_tender_page_refuses_keywords_the_search_refuses(alpha_client, tender_id, q, message):
    response = alpha_client.get(f"/ausschreibung/{tender_id}/", {"q": q})
    assert response.status_code == 400
    assert message in response.content.decode()


def test_the_tender_page_still_highlights_good_keywords(alpha_client, tender_id):
    response = alpha_client.get(f"/ausschreibung/{tender_id}/", {"q": "Dach"})
    assert response.status_code == 200
    assert "<mark>Dachsanierung</mark>" in response.content.decode()


def test_every_caller_that_highlights_text_gets_the_searchs_refusal():
    # Stored searches and the result list pass a KeywordQuery; text is parsed here, checked first.
    for q in ("Dach\x00x", "x" * 301):
        with pytest.raises(FilterError) as refused:
            tender_highlights(q=q, tenders=[])
        assert set(refused.value.fields) == {"q"}


# --- F9: API-key guessing ---------------------------------------------------------------------------


@pytest.fixture
def real_key(alpha) -> str:
    with schema_context(alpha.schema_name):
        admin = get_user_model().objects.get(username=alpha.admin_email)
        return api_key_create(name="CRM", created_by=admin).plaintext


def _wrong_keys_with_the_prefix_of(key: str, count: int) -> list[str]:
    tail = len(key) - PREFIX_LENGTH
    return [key[:PREFIX_LENGTH] + f"{number:0{tail}d}" for number in range(count)]


def _tenders(address: str, key: str, host: str):
    return Client(HTTP_HOST=host, REMOTE_ADDR=address).get("/api/v1/tenders/", HTTP_AUTHORIZATION=f"Bearer {key}")


def test_wrong_keys_with_a_real_keys_prefix_from_many_addresses_do_not_lock_it_out(alpha, real_key):
    guesses = _wrong_keys_with_the_prefix_of(real_key, settings.AXES_FAILURE_LIMIT * 3)
    statuses = {
        _tenders(f"198.51.100.{number + 1}", guess, alpha.host).status_code for number, guess in enumerate(guesses)
    }
    assert statuses == {401}
    assert _tenders("203.0.113.9", real_key, alpha.host).status_code == 200


def test_wrong_keys_with_a_real_keys_prefix_lock_only_the_guessing_address(alpha, real_key):
    limit = settings.AXES_FAILURE_LIMIT
    guesses = _wrong_keys_with_the_prefix_of(real_key, limit * 2)
    statuses = [_tenders("198.51.100.7", guess, alpha.host).status_code for guess in guesses]
    # Brute force from one address is still throttled: the failure that reaches the limit is answered
    # 429 already, and from then on even the right key is refused there.
    assert statuses == [401] * (limit - 1) + [429] * (limit + 1)
    assert _tenders("198.51.100.7", real_key, alpha.host).status_code == 429
    assert _tenders("203.0.113.9", real_key, alpha.host).status_code == 200


def test_the_same_wrong_key_from_many_addresses_is_locked_but_not_its_neighbours(alpha, real_key):
    wrong = _wrong_keys_with_the_prefix_of(real_key, 1)[0]
    statuses = [
        _tenders(f"198.51.100.{number + 1}", wrong, alpha.host).status_code
        for number in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert statuses == [401] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    assert _tenders("192.0.2.1", wrong, alpha.host).status_code == 429
    assert _tenders("192.0.2.1", real_key, alpha.host).status_code == 200


@pytest.mark.parametrize("header", ["HTTP_AUTHORIZATION", "HTTP_X_API_KEY"])
@pytest.mark.parametrize("key", ["tr_\x00abcdefghijk", "\x00", "tr_abc\x1bdef"])
def test_a_key_with_control_characters_is_401_not_a_failed_insert(alpha, header, key):
    value = f"Bearer {key}" if header == "HTTP_AUTHORIZATION" else key
    response = Client(HTTP_HOST=alpha.host).get("/api/v1/tenders/", **{header: value})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


@pytest.mark.parametrize("header", ["HTTP_USER_AGENT", "HTTP_ACCEPT"])
def test_a_wrong_key_with_a_nul_in_a_stored_header_is_401_and_counted(alpha, header):
    # axes keeps these headers with each failed attempt; PostgreSQL text cannot hold a NUL.
    from axes.models import AccessAttempt

    response = Client(HTTP_HOST=alpha.host).get(
        "/api/v1/tenders/", HTTP_AUTHORIZATION="Bearer tr_falsch", **{header: "application/json, curl\x00/8"}
    )
    assert response.status_code == 401
    with schema_context(alpha.schema_name):
        assert AccessAttempt.objects.filter(username__startswith="api-key:tr_falsch:").count() == 1
