"""Pure merge logic: identity keys, fingerprints and compiling a tender from its notices.

No ORM here. ``tenders.services`` loads rows, calls these functions and writes
the results back in bulk; everything here is deterministic in its inputs, so
processing the same notices in any order yields the same tender.

- ``documents``: the stored JSON form of a record and its content hash;
- ``identity``: version order, fingerprints, exact portal references;
- ``compiling``: a tender's state from its notices, and tracked changes.
"""

from tenders.merging.compiling import TRACKED_CHANGES, TenderState, compile_tender, state_changes
from tenders.merging.documents import content_hash, record_from_json, record_json, record_storable, record_to_json
from tenders.merging.identity import (
    FingerprintTraits,
    fingerprint,
    fingerprint_compatible,
    latest_versions,
    normalise_name,
    own_portal_references,
    traits_of,
    value_bucket,
    version_key,
)

__all__ = [
    "TRACKED_CHANGES",
    "FingerprintTraits",
    "TenderState",
    "compile_tender",
    "content_hash",
    "fingerprint",
    "fingerprint_compatible",
    "latest_versions",
    "normalise_name",
    "own_portal_references",
    "record_from_json",
    "record_json",
    "record_storable",
    "record_to_json",
    "state_changes",
    "traits_of",
    "value_bucket",
    "version_key",
]
