"""English mode: British dates and a 24-hour clock, not Django's US "en" formats (12/06/2026, 4 p.m.).

The readers are bidders on German tenders reading in English: "06/12/2026" must not be read as
12 June, and deadlines are stated on the 24-hour clock ("10:00"). Numbers stay English (1,234.50).
"""

DATE_FORMAT = "j M Y"  # 6 Dec 2026
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j M Y, H:i"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "d/m/Y"  # 06/12/2026
SHORT_DATETIME_FORMAT = "d/m/Y H:i"
FIRST_DAY_OF_WEEK = 1  # Monday
DATE_INPUT_FORMATS = [
    "%Y-%m-%d",  # 2026-12-06 (<input type="date"> sends this)
    "%d/%m/%Y",  # 06/12/2026
    "%d/%m/%y",  # 06/12/26
    "%d.%m.%Y",  # 06.12.2026, as German notices write it
    "%d %b %Y",  # 6 Dec 2026
    "%d %B %Y",  # 6 December 2026
]
DATETIME_INPUT_FORMATS = [
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M",  # <input type="datetime-local">
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d.%m.%Y %H:%M",
]
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
