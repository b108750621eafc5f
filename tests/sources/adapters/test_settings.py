"""The shared parts of adapter settings schemas (pure: values in, normalised values and German messages out)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

import pytest
from django.core.exceptions import ValidationError
from pydantic import Field, create_model

from sources.adapters.settings import AdapterSettings, Day, TextDigits, Url, url_hosts, validated_settings

HOSTS = ("api.example.org", "localhost")


def validate(fields: dict[str, Any], values: dict[str, Any], *, hosts=HOSTS, name: str = "TED") -> dict[str, Any]:
    model = create_model("Settings", __base__=AdapterSettings, **fields)
    return validated_settings(model, values, name=name, known_hosts=hosts)


def problems(fields: dict[str, Any], values: dict[str, Any], **options) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        validate(fields, values, **options)
    return caught.value.messages


# -- keys and hosts -------------------------------------------------------------------------------


def test_unknown_keys_are_named_sorted_with_the_known_ones() -> None:
    fields = {"url": (str, ""), "page_size": (int, 1)}
    assert problems(fields, {"zeta": 1, "alpha": 2, "url": "x"}) == [
        "Unbekannte TED-Einstellung(en): alpha, zeta; bekannt: allowed_hosts, page_size, url."
    ]
    assert validate(fields, {"url": "x"}) == {"url": "x", "page_size": 1}


@pytest.mark.parametrize("value", [None, [], ()])
def test_absent_allowed_hosts_are_left_out(value) -> None:
    assert validate({}, {"allowed_hosts": value}) == {}


def test_allowed_hosts_are_normalised_and_deduplicated_in_order() -> None:
    assert validate({}, {"allowed_hosts": ["LocalHost", "[::1]", "localhost.", "Example.ORG"]}) == {
        "allowed_hosts": ["localhost", "::1", "example.org"]
    }


@pytest.mark.parametrize("value", ["localhost", ["localhost", ""], ["ok.example", 42], {"localhost": True}])
def test_allowed_hosts_must_be_a_list_of_names(value) -> None:
    assert problems({}, {"allowed_hosts": value}) == [
        f"allowed_hosts muss eine Liste von Hostnamen sein, nicht {value!r}."
    ]


def test_unknown_keys_and_bad_hosts_are_reported_together() -> None:
    messages = problems({}, {"allowed_hosts": "x", "typo": 1}, name="RSS")
    assert [message.split(" ")[0] for message in messages] == ["Unbekannte", "allowed_hosts"]


# -- URLs -----------------------------------------------------------------------------------------


def check_url(value, *, hosts=HOSTS, **options) -> tuple[str, list[str]]:
    fields = {"api_url": (Url(**options), None)}
    try:
        return validate(fields, {"api_url": value}, hosts=hosts).get("api_url", ""), []
    except ValidationError as exc:
        return "", exc.messages


def test_a_valid_url_is_returned_stripped_with_its_path_query_and_port() -> None:
    assert check_url("  https://API.example.org:8443/v3/search?x=1  ") == (
        "https://API.example.org:8443/v3/search?x=1",
        [],
    )
    assert check_url("http://localhost:8080/feed.xml") == ("http://localhost:8080/feed.xml", [])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("http://api.example.org/v3", "api_url muss https verwenden, nicht http in 'http://api.example.org/v3'."),
        ("ftp://api.example.org/v3", "api_url muss https verwenden, nicht ftp in 'ftp://api.example.org/v3'."),
        ("api.example.org/v3", "api_url muss https verwenden, nicht kein Schema in 'api.example.org/v3'."),
        # Browsers skip the third slash and read host "v3"; urlsplit reads none: refused as ambiguous.
        ("https:///v3", "api_url 'https:///v3' wird von Browsern anders gelesen als geschrieben"),
        # Browsers read host evil.example (a backslash is "/"); urlsplit reads api.example.org.
        ("https://evil.example\\@api.example.org/v3", "api_url 'https://evil.example\\\\@api.example.org/v3' wird von"),
        ("https://api.example.org\\v3", "api_url 'https://api.example.org\\\\v3' wird von Browsern anders gelesen"),
        ("https://api.example.org/v3\tx", "api_url 'https://api.example.org/v3\\tx' wird von Browsern anders gelesen"),
        ("https://u:p@api.example.org/v3", "api_url darf keine Zugangsdaten enthalten (Quellen werden ohne Anmeldung"),
        (
            "https://api.example.org:99999/",
            "api_url 'https://api.example.org:99999/' ist keine gültige URL (ein Browser",
        ),
        ("https://[::1/", "api_url 'https://[::1/' ist keine gültige URL (ein Browser"),
        (
            "https://evil.example/v3",
            "api_url: Host 'evil.example' ist nicht erlaubt; erlaubt: api.example.org, localhost.",
        ),
        (
            "https://api.example.org.evil.example/",
            "api_url: Host 'api.example.org.evil.example' ist nicht erlaubt; erlaubt: api.example.org, localhost.",
        ),
        (42, "api_url muss eine URL sein, nicht 42."),
        ("   ", "api_url muss eine URL sein, nicht '   '."),
        (None, "api_url muss eine URL sein, nicht None."),
    ],
)
def test_bad_urls_give_one_message_naming_the_setting(value, message: str) -> None:
    url, errors = check_url(value)
    assert url == ""
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_plain_http_is_only_for_loopback_hosts_even_when_allowed() -> None:
    assert check_url("http://api.example.org/", hosts=["api.example.org"])[1] == [
        "api_url muss https verwenden, nicht http in 'http://api.example.org/'."
    ]
    assert check_url("http://127.0.0.1:9/", hosts=["127.0.0.1"]) == ("http://127.0.0.1:9/", [])


def test_allowed_hosts_replace_the_known_hosts_for_urls() -> None:
    fields = {"api_url": (Url(), "https://api.example.org/v3")}
    assert validate(fields, {"allowed_hosts": ["other.example"], "api_url": "https://other.example/x"}) == {
        "allowed_hosts": ["other.example"],
        "api_url": "https://other.example/x",
    }
    assert problems(fields, {"allowed_hosts": ["other.example"]}) == [
        "api_url: Host 'api.example.org' ist nicht erlaubt; erlaubt: other.example."
    ]


def test_query_and_fragment_are_refused_only_where_asked() -> None:
    url = "https://api.example.org/a?b=1#c"
    assert check_url(url) == (url, [])
    assert check_url(url, allow_query=False)[1] == [f"api_url darf keine Query (?…) enthalten, nicht {url!r}."]
    assert check_url(url, allow_fragment=False)[1] == [f"api_url darf kein Fragment (#…) enthalten, nicht {url!r}."]
    assert check_url(url, allow_query=False, allow_fragment=False)[1] == [
        f"api_url darf keine Query (?…) und kein Fragment (#…) enthalten, nicht {url!r}."
    ]


def test_example_missing_message_and_hint() -> None:
    assert check_url(None, example="https://api.example.org/v3")[1] == [
        "api_url muss eine URL sein wie https://api.example.org/v3, nicht None."
    ]
    assert check_url("", missing="api_url fehlt.")[1] == ["api_url fehlt."]
    assert check_url("https://other.example/", hint="In allowed_hosts eintragen.")[1] == [
        "api_url: Host 'other.example' ist nicht erlaubt; erlaubt: api.example.org, localhost. In allowed_hosts eintragen."
    ]


def test_optional_urls_may_be_absent() -> None:
    assert check_url(None, optional=True) == ("", [])
    assert check_url("", optional=True) == ("", [])
    assert check_url("https://evil.example/", optional=True)[1][0].startswith("api_url: Host 'evil.example'")


def test_base_url_drops_the_trailing_slash_and_refuses_query_and_fragment() -> None:
    def base(value: str) -> tuple[str, list[str]]:
        fields = {"base_url": (Url(base=True, example="x"), None)}
        try:
            return validate(fields, {"base_url": value})["base_url"], []
        except ValidationError as exc:
            return "", exc.messages

    assert base("https://api.example.org/") == ("https://api.example.org", [])
    assert [m.split(",")[0] for value in ("/?a=1", "/#top") for m in base(f"https://api.example.org{value}")[1]] == [
        "base_url darf keine Query (?…) enthalten",
        "base_url darf kein Fragment (#…) enthalten",
    ]


def test_application_url_matches_its_paths_ignoring_case_and_slash_and_spells_them_as_given() -> None:
    def app(value: str, paths: tuple[str, ...]) -> tuple[str, list[str]]:
        fields = {"base_url": (Url(paths=paths, application="Portal", example="x"), None)}
        try:
            return validate(fields, {"base_url": value})["base_url"], []
        except ValidationError as exc:
            return "", exc.messages

    assert app("https://api.example.org/netserver", ("/NetServer/",)) == ("https://api.example.org/NetServer/", [])
    assert app("https://api.example.org:8443/Center/", ("/Satellite", "/Center")) == (
        "https://api.example.org:8443/Center",
        [],
    )
    assert app("https://api.example.org/Other", ("/NetServer/",))[1] == [
        "base_url muss auf /NetServer/ enden (die Portal-Anwendung), nicht 'https://api.example.org/Other'."
    ]
    assert app("https://api.example.org/", ("/Satellite", "/Center"))[1] == [
        "base_url muss auf eines von /Satellite, /Center enden (die Portal-Anwendung), nicht 'https://api.example.org'."
    ]
    assert app("https://elsewhere.example/Center", ("/Center",))[1] == [
        "base_url: Host 'elsewhere.example' ist nicht erlaubt; erlaubt: api.example.org, localhost."
    ]


def test_url_hosts_are_the_hosts_of_the_named_urls_present() -> None:
    settings = {"base_url": "https://Portal.example/app", "opendata_url": "", "feed_url": "https://feed.example/x"}
    assert url_hosts(settings, ("base_url", "opendata_url")) == frozenset({"portal.example"})
    assert url_hosts(settings, ("base_url", "feed_url")) == frozenset({"portal.example", "feed.example"})
    assert url_hosts({}, ("base_url",)) == frozenset()


# -- numbers and days -----------------------------------------------------------------------------

PAGES = {"max_pages": (Annotated[int, TextDigits, Field(ge=1, le=10)], 5)}


def test_whole_numbers_within_bounds_inclusive() -> None:
    assert validate(PAGES, {"max_pages": 1}) == {"max_pages": 1}
    assert validate(PAGES, {"max_pages": 10}) == {"max_pages": 10}
    assert validate(PAGES, {"max_pages": " 7 "}) == {"max_pages": 7}  # text digits count where declared
    assert validate(PAGES, {}) == {"max_pages": 5}


@pytest.mark.parametrize("value", [0, 11, -1, True, False, 2.0, None, "", "ten", "3.5", "²", "１２", [3]])
def test_anything_else_is_refused_with_the_range(value) -> None:
    assert problems(PAGES, {"max_pages": value}) == [
        f"max_pages muss eine ganze Zahl von 1 bis 10 sein, nicht {value!r}."
    ]


def test_text_digits_are_refused_unless_declared() -> None:
    fields = {"max_pages": (Annotated[int, Field(ge=1, le=10)], 5)}
    assert problems(fields, {"max_pages": "7"}) == ["max_pages muss eine ganze Zahl von 1 bis 10 sein, nicht '7'."]


@pytest.mark.parametrize(
    ("value", "day"),
    [
        (None, None),
        ("", None),
        ("2026-07-01", "2026-07-01"),
        (" 2026-07-01 ", "2026-07-01"),
        (date(2026, 7, 1), "2026-07-01"),
        (datetime(2026, 7, 1, 23, 30), "2026-07-01"),
    ],
)
def test_iso_days(value, day: str | None) -> None:
    assert validate({"start_day": (Day(), None)}, {"start_day": value}).get("start_day") == day


@pytest.mark.parametrize("value", ["01.07.2026", "2026-02-30", 2026, "gestern", ["2026-07-01"]])
def test_anything_but_an_iso_day_is_refused(value) -> None:
    assert problems({"start_day": (Day(), None)}, {"start_day": value}) == [
        f"start_day muss ein ISO-Datum (JJJJ-MM-TT) sein, nicht {value!r}."
    ]


def test_days_before_the_earliest_are_refused_with_the_reason() -> None:
    fields = {"start_day": (Day(earliest=date(2022, 12, 1), reason="warum"), None)}
    assert validate(fields, {"start_day": "2022-12-01"}) == {"start_day": "2022-12-01"}
    assert problems(fields, {"start_day": "2022-11-30"}) == ["start_day muss 2022-12-01 oder später sein (warum)."]


# -- every problem at once ----------------------------------------------------------------------


def test_every_problem_is_reported_at_once_each_naming_its_setting() -> None:
    fields = {
        "api_url": (Url(), "https://api.example.org/v3"),
        "max_pages": PAGES["max_pages"],
        "start_day": (Day(), None),
    }
    values = {
        "api_url": "https://evil.example/",
        "max_pages": 0,
        "start_day": "gestern",
        "allowed_hosts": 7,
        "maxpages": 1,
        "api": 2,
    }
    assert problems(fields, values) == [
        "Unbekannte TED-Einstellung(en): api, maxpages; bekannt: allowed_hosts, api_url, max_pages, start_day.",
        "allowed_hosts muss eine Liste von Hostnamen sein, nicht 7.",
        "api_url: Host 'evil.example' ist nicht erlaubt; erlaubt: api.example.org, localhost.",
        "max_pages muss eine ganze Zahl von 1 bis 10 sein, nicht 0.",
        "start_day muss ein ISO-Datum (JJJJ-MM-TT) sein, nicht 'gestern'.",
    ]


def test_several_range_problems_are_all_reported() -> None:
    fields = {name: (Annotated[int, Field(ge=1, le=9)], 3) for name in ("a", "b", "c")}
    assert problems(fields, {"a": 0, "b": 10, "c": 5}) == [
        "a muss eine ganze Zahl von 1 bis 9 sein, nicht 0.",
        "b muss eine ganze Zahl von 1 bis 9 sein, nicht 10.",
    ]
