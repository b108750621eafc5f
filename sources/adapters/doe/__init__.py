"""DÖE (Datenservice Öffentlicher Einkauf, Bekanntmachungsservice on oeffentlichevergabe.de).

Why this source: German procurement platforms forward their notices (all EU-wide ones and
many national ones) to the Bekanntmachungsservice, and its OpenData API offers the whole
output of a day as one download - two requests per day instead of one per notice.

Flow (``fetch``): for each closed Europe/Berlin day (never today; the newest is yesterday
relative to ``now``) from the cursor's ``last_day`` + 1, else ``start_day``, else yesterday,
at most ``max_days_per_run`` days: ``GET /api/notice-exports?pubDay=<day>&format=ocds.zip``
and ``…&format=eforms.zip``, read both ZIPs defensively (:mod:`.archive`), parse every
member (eForms XML of any profile - legacy ``eforms-sdk-0.1`` and eForms-DE 2.x - and OCDS
release packages) in worker processes, join the two renditions of each notice version by file
name stem (:mod:`.join`, streamed by :mod:`.stream`) and yield the day's notices in batches of
at most ``batch_limits`` (1,000 notices or 32 MiB of members), the last one carrying
``cursor={"last_day": day}``; scope = the day.

Decisions:

* A 404, a 204 or an empty body for a format means "no notices that day" (the spec promises
  an empty ZIP; both are accepted). Every other fetch error propagates and ends the run; the
  day is retried next run because its cursor was never stored.
* A corrupt ZIP (or HTML instead of a ZIP) is ``AdapterError(reason="bad_zip")``: a truncated
  download must not mark the day done. Broken single files are problems
  (``"<file>: <reason>"``) and the day still completes.
* Re-fetching a day is harmless: the ingest upserts by (source, notice id, version).
* ``parse_files`` applies the same reading and join to saved exports: a ZIP (or a day's two
  ZIPs), a folder, or loose eForms XML / OCDS JSON files; it never moves the cursor.

Settings: ``base_url`` (default https://oeffentlichevergabe.de; https only, plain http only
for loopback test servers; host in ``allowed_hosts`` if given, else ``known_hosts``),
``start_day`` (ISO date, not before 2022-12-01), ``max_days_per_run`` (1-31, default 3),
``allowed_hosts``. Unknown keys are refused so typos do not pass silently.

Limits: a day's ZIP must fit the Fetcher's ``max_body_bytes`` (the default 20 MiB may be too
small for a busy day's eForms export; the run then fails with reason "too_large" and
retries the same day); with parse workers it is spooled to a temporary file for them to read.
``pubMonth`` and ``csv.zip`` are not used. Nested archives are not opened. No conditional
requests: a closed day's export does not change.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .adapter import DoeAdapter
    from .archive import ZipLimits
    from .join import join_doe_records, stem_key
    from .options import days_to_fetch, export_url

__all__ = ["DoeAdapter", "ZipLimits", "days_to_fetch", "export_url", "join_doe_records", "stem_key"]

# Imported on first use, so a parse worker that imports ``.reading`` does not import the adapter,
# and with it the network client and the settings schemas (about 0.4 s before its first notice).
_HOMES = {
    "DoeAdapter": ".adapter",
    "ZipLimits": ".archive",
    "join_doe_records": ".join",
    "stem_key": ".join",
    "days_to_fetch": ".options",
    "export_url": ".options",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home, __name__), name)
