"""portal_format.date_text writes the short formats as Django's date_format does, for every moment."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone, translation
from django.utils.formats import date_format

from notifications.templatetags.portal_format import date_text, when

# Every hour of 2026 (both clock changes among them), local and UTC, and the small years.
MOMENTS = [datetime(2026, 1, 1) + timedelta(hours=hours) for hours in range(0, 365 * 24, 7)]


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("format_name", ["SHORT_DATE_FORMAT", "SHORT_DATETIME_FORMAT"])
def test_the_short_formats_are_djangos(language, format_name):
    with translation.override(language):
        for naive in [*MOMENTS, datetime(5, 3, 4, 1, 2), datetime(9999, 12, 30, 23, 59)]:
            for moment in (
                naive,
                timezone.make_aware(naive, UTC),
                timezone.localtime(timezone.make_aware(naive, UTC)),
            ):
                assert date_text(moment, format_name) == date_format(moment, format_name), moment


@pytest.mark.parametrize("language", ["de", "en"])
def test_other_formats_and_dates_are_left_to_django(language):
    moment = timezone.make_aware(datetime(2026, 3, 29, 2, 30))
    with translation.override(language):
        for format_name in ("DATE_FORMAT", "DATETIME_FORMAT", "YEAR_MONTH_FORMAT"):
            assert date_text(moment, format_name) == date_format(moment, format_name)
        assert date_text(date(2026, 3, 4), "SHORT_DATE_FORMAT") == date_format(date(2026, 3, 4), "SHORT_DATE_FORMAT")
        assert when(timezone.make_aware(datetime(2026, 3, 4))) == date_format(date(2026, 3, 4), "SHORT_DATE_FORMAT")
