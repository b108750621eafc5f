"""wordfreq's German word list as one dict, read straight from the package's data file.

Why not ``wordfreq.get_frequency_dict``: importing wordfreq (language tags, tokenisers) and
filling the dict word by word took about 0.7 s per process, in the one process that writes
tenders. The list is wordfreq's "cBpack" file (gzipped msgpack: a header, then one list of
words per centibel of frequency, index i meaning 10 ** (-i / 100)), read here in C-level
steps: about 0.3 s, the same dict (a test compares it with wordfreq's own). A file of another
format falls back to wordfreq.

Imported on first use; the parse workers' fork server imports it once, so they share it.
"""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

import msgpack

__all__ = ["FREQUENCIES", "load_frequencies"]

_LIST = "large_de.msgpack.gz"
_FORMAT = {"format": "cB", "version": 1}


def load_frequencies() -> dict[str, float]:
    spec = importlib.util.find_spec("wordfreq")  # finds the package without importing it
    folder = Path(next(iter(spec.submodule_search_locations or ()), "")) / "data"
    try:
        pack = msgpack.unpackb(gzip.decompress((folder / _LIST).read_bytes()), raw=False)
    except (OSError, ValueError, msgpack.UnpackException):
        pack = None
    if not isinstance(pack, list) or not pack or pack[0] != _FORMAT:
        from wordfreq import get_frequency_dict

        return get_frequency_dict("de", "large")
    frequencies: dict[str, float] = {}
    for index, bucket in enumerate(pack[1:]):
        # wordfreq's rule: a word listed twice keeps its later (rarer) bucket.
        frequencies.update(dict.fromkeys(bucket, 10 ** (-index / 100)))
    return frequencies


FREQUENCIES = load_frequencies()
