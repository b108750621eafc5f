"""The link rules moved to ``sources.links`` (pure, record-level, shared by parsers and merging).

Kept so existing imports keep working; new code imports ``sources.links``.
"""

from sources.links import (  # noqa: F401
    LINK_FIELDS,
    SAFE_SCHEMES,
    LinksChecked,
    portal_references_from_urls,
    records_links_checked,
    safe_link,
    urls_in_json,
    urls_in_text,
)
