"""Build the DÖE export ZIPs in this folder from the real fixtures in ``tests/data/doe``.

Run from the repository root: ``.venv/bin/python tests/data/doe/exports/build.py``.
Output is deterministic (sorted members, fixed timestamps) so a rebuild leaves git clean
as long as zlib compresses the same way. See README.md for what is real and what derived.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent
DAY = "2026-09-14"
TIMESTAMP = (2026, 9, 15, 3, 0, 0)  # DÖE builds a day's export after the day closed

EFORMS_DE = FIXTURES / "eforms-de-2.1_cn-standard_16_24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml"
EFORMS_LEGACY = FIXTURES / "eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml"
OCDS_3LOTS = (
    FIXTURES / "ocds_release-package_tender_3lots_value_subreport-docs_000ada85-c11f-44cf-b1e6-b4bb5232ed7b.json"
)

# The derived OCDS package for the eForms-DE notice: only these ids change (see README.md).
MPI_NOTICE_ID = "24d29507-f9dd-4712-aef0-9d864df3af8e"
MPI_PROCEDURE_ID = "e2530ce2-555c-4a3f-81f1-0bf04a1ee9a5"  # cbc:ContractFolderID of the eForms notice
OCDS_3LOTS_RELEASE_ID = "000ada85-c11f-44cf-b1e6-b4bb5232ed7b"
OCDS_3LOTS_OCID = "ocds-mnwr74-3388307f-365f-4502-a18d-41661ae47e9e"


def eforms_members() -> dict[str, bytes]:
    return {
        f"{MPI_NOTICE_ID}-01.xml": EFORMS_DE.read_bytes(),  # eForms-DE 2.1 / SDK 1.13
        "17750180-1.xml": EFORMS_LEGACY.read_bytes(),  # legacy eforms-sdk-0.1, prefixed root: mixed profiles
    }


def derived_mpi_ocds() -> bytes:
    """The 3-lots OCDS package with release id (also in ``uri``) and ocid of the eForms notice."""
    raw = OCDS_3LOTS.read_bytes()
    assert raw.count(OCDS_3LOTS_RELEASE_ID.encode()) == 2 and raw.count(OCDS_3LOTS_OCID.encode()) == 1
    raw = raw.replace(OCDS_3LOTS_RELEASE_ID.encode(), MPI_NOTICE_ID.encode())
    return raw.replace(OCDS_3LOTS_OCID.encode(), f"ocds-mnwr74-{MPI_PROCEDURE_ID}".encode())


def ocds_members() -> dict[str, bytes]:
    members = {}
    for path in sorted(FIXTURES.glob("ocds_release-package_*.json")):
        release_id = json.loads(path.read_bytes())["releases"][0]["id"]
        members[f"{release_id}-01.json"] = path.read_bytes()
    members[f"{MPI_NOTICE_ID}-01.json"] = derived_mpi_ocds()
    return members


def write_zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, members[name])


def main() -> None:
    write_zip(HERE / f"{DAY}_eforms.zip", eforms_members())
    write_zip(HERE / f"{DAY}_ocds.zip", ocds_members())


if __name__ == "__main__":
    main()
