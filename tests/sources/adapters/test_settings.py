"""The shared checks of adapter settings (pure: values in, normalised values and messages out)."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from django.core.exceptions import ValidationError

from sources.adapters.settings import (
    allowed_hosts,
    application_url,
    base_url,
    bounded_int,
    bounded_ints,
    common_settings,
    endpoint_url,
    iso_day,
    settings_result,
    unknown_settings,
    url_hosts,
)

HOSTS = ("api.example.org", "localhost")


# -- keys and hosts -------------------------------------------------------------------------------


def test_unknown_keys_are_named_sorted_with_the_known_ones() -> None:
    errors: list[str] = []
    unknown_settings({"zeta": 1, "alpha": 2, "url": 3}, {"url", "page_size"}, name="TED", errors=errors)
    assert errors == ["Unknown TED setting(s): alpha, zeta; known: page_size, url."]
    errors.clear()
    unknown_settings({"url": 3}, {"url"}, name="TED", errors=errors)
    assert errors == []


@pytest.mark.parametrize("value", [None, [], ()])
def test_absent_allowed_hosts_are_empty(value) -> None:
    errors: list[str] = []
    assert allowed_hosts(value, errors) == []
    assert errors == []


def test_allowed_hosts_are_normalised_and_deduplicated_in_order() -> None:
    errors: list[str] = []
    assert allowed_hosts(["LocalHost", "[::1]", "localhost.", "Example.ORG"], errors) == [
        "localhost",
        "::1",
        "example.org",
    ]
    assert errors == []


@pytest.mark.parametrize("value", ["localhost", ["localhost", ""], ["ok.example", 42], {"localhost": True}])
def test_allowed_hosts_must_be_a_list_of_names(value) -> None:
    errors: list[str] = []
    assert allowed_hosts(value, errors) == []
    assert errors == [f"allowed_hosts must be a list of host names, got {value!r}."]


def test_common_settings_report_unknown_keys_and_bad_hosts_together() -> None:
    errors: list[str] = []
    assert common_settings({"allowed_hosts": "x", "typo": 1}, name="RSS", known={"allowed_hosts"}, errors=errors) == {}
    assert [message.split(" ")[0] for message in errors] == ["Unknown", "allowed_hosts"]
    errors.clear()
    assert common_settings({"allowed_hosts": ["A.example"]}, name="RSS", known={"allowed_hosts"}, errors=errors) == {
        "allowed_hosts": ["a.example"]
    }
    assert errors == []


# -- URLs -----------------------------------------------------------------------------------------


def check_url(value, **options) -> tuple[str, list[str]]:
    errors: list[str] = []
    options.setdefault("hosts", HOSTS)
    return endpoint_url(value, setting="api_url", errors=errors, **options), errors


def test_a_valid_url_is_returned_stripped_with_its_path_query_and_port() -> None:
    assert check_url("  https://API.example.org:8443/v3/search?x=1  ") == (
        "https://API.example.org:8443/v3/search?x=1",
        [],
    )
    assert check_url("http://localhost:8080/feed.xml") == ("http://localhost:8080/feed.xml", [])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("http://api.example.org/v3", "api_url must use https, got http scheme in 'http://api.example.org/v3'."),
        ("ftp://api.example.org/v3", "api_url must use https, got ftp scheme in 'ftp://api.example.org/v3'."),
        ("api.example.org/v3", "api_url must use https, got no scheme in 'api.example.org/v3'."),
        ("https:///v3", "api_url 'https:///v3' has no host."),
        ("https://u:p@api.example.org/v3", "api_url must not contain credentials (sources are read without a login)."),
        ("https://api.example.org:99999/", "api_url 'https://api.example.org:99999/' is no valid URL: "),
        ("https://[::1/", "api_url 'https://[::1/' is no valid URL: "),
        (
            "https://evil.example/v3",
            "api_url host 'evil.example' is not allowed; allowed: api.example.org, localhost.",
        ),
        (
            "https://api.example.org.evil.example/",
            "api_url host 'api.example.org.evil.example' is not allowed; allowed: api.example.org, localhost.",
        ),
        (42, "api_url must be a URL, got 42."),
        ("   ", "api_url must be a URL, got '   '."),
        (None, "api_url must be a URL, got None."),
    ],
)
def test_bad_urls_give_one_message_naming_the_setting(value, message: str) -> None:
    url, errors = check_url(value)
    assert url == ""
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_plain_http_is_only_for_loopback_hosts_even_when_allowed() -> None:
    assert check_url("http://api.example.org/", hosts=["api.example.org"])[1] == [
        "api_url must use https, got http scheme in 'http://api.example.org/'."
    ]
    assert check_url("http://127.0.0.1:9/", hosts=["127.0.0.1"]) == ("http://127.0.0.1:9/", [])


def test_query_and_fragment_are_refused_only_where_asked() -> None:
    url = "https://api.example.org/a?b=1#c"
    assert check_url(url) == (url, [])
    assert check_url(url, allow_query=False)[1] == [f"api_url must not carry a query, got {url!r}."]
    assert check_url(url, allow_fragment=False)[1] == [f"api_url must not carry a fragment, got {url!r}."]
    assert check_url(url, allow_query=False, allow_fragment=False)[1] == [
        f"api_url must not carry a query or fragment, got {url!r}."
    ]


def test_example_missing_message_and_hint() -> None:
    assert check_url(None, example="https://api.example.org/v3")[1] == [
        "api_url must be a URL such as https://api.example.org/v3, got None."
    ]
    assert check_url("", missing="api_url is required.")[1] == ["api_url is required."]
    assert check_url("https://other.example/", hint="List it in allowed_hosts.")[1] == [
        "api_url host 'other.example' is not allowed; allowed: api.example.org, localhost. List it in allowed_hosts."
    ]


def test_base_url_drops_the_trailing_slash_and_refuses_query_and_fragment() -> None:
    errors: list[str] = []
    assert base_url("https://api.example.org/", hosts=HOSTS, errors=errors, example="x") == "https://api.example.org"
    assert base_url("https://api.example.org/?a=1", hosts=HOSTS, errors=errors, example="x") == ""
    assert base_url("https://api.example.org/#top", hosts=HOSTS, errors=errors, example="x") == ""
    assert [m.split(",")[0] for m in errors] == [
        "base_url must not carry a query",
        "base_url must not carry a fragment",
    ]


def test_application_url_matches_its_paths_ignoring_case_and_slash_and_spells_them_as_given() -> None:
    errors: list[str] = []

    def app(value: str, paths: tuple[str, ...]) -> str:
        return application_url(value, hosts=HOSTS, errors=errors, paths=paths, application="portal", example="x")

    assert app("https://api.example.org/netserver", ("/NetServer/",)) == "https://api.example.org/NetServer/"
    assert (
        app("https://api.example.org:8443/Center/", ("/Satellite", "/Center")) == "https://api.example.org:8443/Center"
    )
    assert errors == []
    assert app("https://api.example.org/Other", ("/NetServer/",)) == ""
    assert app("https://api.example.org/", ("/Satellite", "/Center")) == ""
    assert app("https://elsewhere.example/Center", ("/Center",)) == ""
    assert errors == [
        "base_url must end in /NetServer/ (the portal application), got 'https://api.example.org/Other'.",
        "base_url must end in one of /Satellite, /Center (the portal application), got 'https://api.example.org'.",
        "base_url host 'elsewhere.example' is not allowed; allowed: api.example.org, localhost.",
    ]


def test_url_hosts_are_the_hosts_of_the_named_urls_present() -> None:
    settings = {"base_url": "https://Portal.example/app", "opendata_url": "", "feed_url": "https://feed.example/x"}
    assert url_hosts(settings, ("base_url", "opendata_url")) == frozenset({"portal.example"})
    assert url_hosts(settings, ("base_url", "feed_url")) == frozenset({"portal.example", "feed.example"})
    assert url_hosts({}, ("base_url",)) == frozenset()


# -- numbers and days -----------------------------------------------------------------------------


def check_int(value, **options) -> tuple[int | None, list[str]]:
    errors: list[str] = []
    return bounded_int(value, setting="max_pages", low=1, high=10, errors=errors, **options), errors


def test_whole_numbers_within_bounds_inclusive() -> None:
    assert check_int(1) == (1, [])
    assert check_int(10) == (10, [])
    assert check_int(" 7 ") == (7, [])  # text digits count unless refused


@pytest.mark.parametrize("value", [0, 11, -1, True, False, 2.0, None, "", "ten", "3.5", "²", "１２", [3]])
def test_anything_else_is_refused_with_the_range(value) -> None:
    assert check_int(value) == (None, [f"max_pages must be a whole number from 1 to 10, got {value!r}."])


def test_text_digits_can_be_refused() -> None:
    assert check_int("7", digit_strings=False) == (None, ["max_pages must be a whole number from 1 to 10, got '7'."])


def test_bounded_ints_fill_defaults_and_keep_the_default_for_refused_values() -> None:
    errors: list[str] = []
    ranges = {"page_size": (1, 100), "max_pages": (1, 10)}
    defaults = {"page_size": 50, "max_pages": 5}
    assert bounded_ints({}, ranges=ranges, defaults=defaults, errors=errors) == defaults
    assert bounded_ints({"page_size": "20", "max_pages": 0}, ranges=ranges, defaults=defaults, errors=errors) == {
        "page_size": 20,
        "max_pages": 5,
    }
    assert errors == ["max_pages must be a whole number from 1 to 10, got 0."]


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
    errors: list[str] = []
    assert iso_day(value, setting="start_day", errors=errors) == day
    assert errors == []


@pytest.mark.parametrize("value", ["01.07.2026", "2026-02-30", 2026, "gestern", ["2026-07-01"]])
def test_anything_but_an_iso_day_is_refused(value) -> None:
    errors: list[str] = []
    assert iso_day(value, setting="start_day", errors=errors) is None
    assert errors == [f"start_day must be an ISO date (YYYY-MM-DD), got {value!r}."]


def test_days_before_the_earliest_are_refused_with_the_reason() -> None:
    errors: list[str] = []
    earliest = date(2022, 12, 1)
    assert iso_day("2022-12-01", setting="start_day", errors=errors, earliest=earliest) == "2022-12-01"
    assert iso_day("2022-11-30", setting="start_day", errors=errors, earliest=earliest, earliest_reason="why") is None
    assert errors == ["start_day must be 2022-12-01 or later (why)."]


# -- the result -----------------------------------------------------------------------------------


def test_settings_result_raises_every_message_at_once() -> None:
    assert settings_result({"a": 1}, []) == {"a": 1}
    with pytest.raises(ValidationError) as caught:
        settings_result({"a": 1}, ["first.", "second."])
    assert caught.value.messages == ["first.", "second."]
