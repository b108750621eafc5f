"""End-to-end ingest from the archive, as an operator runs it: ``manage.py ingest doe --file <day's two ZIPs>``.

The archive (built once, cached under ``bench/.cache/``) holds N notice versions in the DÖE
export layout: ``<day>_eforms.zip`` with ``<id>-<version>.xml`` and ``<day>_ocds.zip`` with
``<id>-<version>.json``. Every notice is a real notice from ``tests/data`` (copies of ``shared/fixtures``) — mostly the
eForms-DE contract notice from DÖE, plus the legacy eForms notice and the eForms SDK's
contract award and maximal contract notices, each paired with one of DÖE's real OCDS release
packages — copied with fresh ids (every UUID of the copy replaced, notice id and release id
shared by the pair) and fresh NetServer ``TenderOID`` and cosinex ``CX`` links, so no two copies merge.

Measured, each from empty tender tables, each a fresh ``manage.py`` process, in ``--runs``
alternating pairs (default 3; the figures are medians, the ratio the median of the pairs'):
* single: ``SOURCES_PARSE_WORKERS=1`` (parse and write in one process, one after the other);
* shipped: the default (parse workers on every core, one writer);
* again: the shipped path once more on the same archive without emptying the tables (an operator
  re-reading a day): every notice is skipped before parsing by the digest of its bytes.
With ``--peer PATH`` (an installed copy of the open-source peer, ausschreibungsradar), each round
also runs the peer on the same archive (``bench/peer.py``) and the ratio is shipped against it.
The rate is notices per second of the run as the FetchRun records it (from its start to its
commit); the process wall time, interpreter start included, is printed beside it. Parse-only
is the members parsed in this process (one core), write-only the same records ingested
without parsing. Peak RSS is the largest resident set of the writer or any of its workers.
Beside each rate: the machine's busy CPU over the whole process (``bench.cpu``; interpreter and Django start
included, about 1.5 CPU-seconds for the product, a tenth of that for the peer), per notice and as the share of the
cores it filled: a CPU-bound run gains only what it stops spending. Then the same over each run alone (the
FetchRun's start to commit; the peer's ``ingerir``), and the ceiling that follows: the rate of the shipped path
with every core busy all run long at its runs' CPU a notice, and that rate against the peer's. No scheduling,
batching or start-up change can take the shipped path past its ceiling; only spending less CPU a notice can.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

from bench.cpu import CpuSpan, CpuTimeline, MachineCpu
from bench.peer import PeerRun
from sources.adapters.doe.archive import Member
from sources.adapters.doe.stream import parse_members
from sources.models import FetchRun
from sources.selectors import fingerprint_rule_enabled
from tenders.services import notices_ingest

ROOT = Path(__file__).resolve().parents[1]
# Copies of the real notices in shared/fixtures, kept with the tests (origin in their READMEs).
FIXTURES = ROOT / "tests" / "data"
CACHE = ROOT / "bench" / ".cache"
DAY = "2026-11-02"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TENDER_OID = re.compile(r"TenderOID=[0-9A-Za-z-]+")
COSINEX_ID = re.compile(r"CX[0-9A-Z]{6,}")
NOTICE_ID = re.compile(r'schemeName="notice-id">([^<]+)<')
VERSION = re.compile(r"<cbc:VersionID>(\d+)</cbc:VersionID>")

# (eForms template, share of the archive); each copy is paired with the next OCDS template in turn.
XML_TEMPLATES = [
    ("doe/eforms-de-2.1_cn-standard_16_24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml", 7),
    ("doe/eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml", 1),
    ("ted/eforms-sdk_can_24_minimal.xml", 1),
    ("ted/eforms-sdk_cn_24_maximal.xml", 1),
]
OCDS_TEMPLATES = sorted(str(p.relative_to(FIXTURES)) for p in (FIXTURES / "doe").glob("ocds_release-package_*.json"))


def _fresh(text: str, notice_id: str, template_notice_id: str, rng_ns: uuid.UUID, copy: int) -> str:
    """Every UUID replaced (the notice id by ``notice_id``), TenderOID links made unique."""

    def swap(match: re.Match) -> str:
        old = match.group(0)
        return notice_id if old == template_notice_id else str(uuid.uuid5(rng_ns, f"{copy}:{old}"))

    text = UUID.sub(swap, text)
    text = COSINEX_ID.sub(f"CXB{copy:08X}", text)
    return TENDER_OID.sub(f"TenderOID=54321-Tender-{copy:011x}-bench", text)


def build_archive(n: int) -> list[Path]:
    folder = CACHE / f"e2e-{n}"
    paths = [folder / f"{DAY}_eforms.zip", folder / f"{DAY}_ocds.zip"]
    if all(p.exists() for p in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    templates = [(FIXTURES / name).read_text(encoding="utf-8") for name, _ in XML_TEMPLATES]
    weights = [share for _, share in XML_TEMPLATES]
    cycle = [i for i, share in enumerate(weights) for _ in range(share)]
    ocds = [json.loads((FIXTURES / name).read_text(encoding="utf-8")) for name in OCDS_TEMPLATES]
    ns = uuid.UUID("6f1c1e1e-7d5b-4e36-9a0e-000000000e2e")
    tmp = [p.with_suffix(".part") for p in paths]
    with (
        zipfile.ZipFile(tmp[0], "w", zipfile.ZIP_DEFLATED) as xml_zip,
        zipfile.ZipFile(tmp[1], "w", zipfile.ZIP_DEFLATED) as json_zip,
    ):
        for copy in range(n):
            template = templates[cycle[copy % len(cycle)]]
            notice_id = str(uuid.uuid5(ns, f"notice:{copy}"))
            found = NOTICE_ID.search(template)
            version_found = VERSION.search(template)
            version = f"{int(version_found.group(1)):02d}" if version_found else "01"
            if found:
                xml = _fresh(template, notice_id, found.group(1), ns, copy)
            else:  # the legacy notice has no UUID notice id: its numeric id becomes the copy's id
                xml = _fresh(template.replace("17750180", notice_id), notice_id, notice_id, ns, copy)
            xml_zip.writestr(f"{notice_id}-{version}.xml", xml)
            package = json.loads(json.dumps(ocds[copy % len(ocds)]))
            release = package["releases"][0]
            text = _fresh(json.dumps(package), notice_id, release["id"], ns, copy)
            package = json.loads(text)
            package["releases"][0]["id"] = notice_id
            json_zip.writestr(f"{notice_id}-{version}.json", json.dumps(package, ensure_ascii=False))
    for part, final in zip(tmp, paths, strict=True):
        part.rename(final)
    return paths


def _truncate() -> None:
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE tenders_tenderversion, tenders_tendersource, tenders_tender RESTART IDENTITY CASCADE")


@dataclass(frozen=True)
class IngestRun:
    """One ``manage.py ingest doe --file`` process: its run (the FetchRun's start to commit) and the whole process."""

    seconds: float
    wall: float
    peak_mb: float
    summary: str
    cpu: CpuSpan | None  # the machine's, over the whole process
    run_cpu: CpuSpan | None  # the machine's, over the run alone


def _ingest_process(paths: list[Path], *, workers: int | None, empty: bool = True) -> IngestRun:
    if empty:
        _truncate()
    env = dict(os.environ)
    if workers is None:
        env.pop("SOURCES_PARSE_WORKERS", None)
    else:
        env["SOURCES_PARSE_WORKERS"] = str(workers)
    started = time.perf_counter()
    with CpuTimeline() as timeline, MachineCpu() as cpu:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "ingest", "doe", "--file", *map(str, paths)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        output = process.stdout.read().decode()
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"ingest failed ({process.returncode}):\n{output}")
    run = FetchRun.objects.order_by("-pk").first()
    summary = output.strip().splitlines()[-1] if output.strip() else ""  # the command's report, not its log lines
    return IngestRun(
        seconds=(run.finished_at - run.started_at).total_seconds(),
        wall=wall,
        peak_mb=usage.ru_maxrss / 1024,
        summary=summary,
        cpu=cpu.span,
        run_cpu=timeline.between(run.started_at.timestamp(), run.finished_at.timestamp()),
    )


def _members(paths: list[Path]) -> list[Member]:
    members = []
    for path in paths:
        with zipfile.ZipFile(path) as zf:
            members.extend(
                Member(label=info.filename, name=info.filename, data=zf.read(info)) for info in zf.infolist()
            )
    return members


def run(*, n: int | None, runs: int | None = None, peer: str | None = None) -> None:
    n = n or 5000
    runs = max(1, runs or 3)
    peer_runner = None
    if peer:
        from bench.peer import PeerRunner

        peer_runner = PeerRunner(Path(peer))  # fails at once, with the reason, when the peer is not usable
    started = time.perf_counter()
    paths = build_archive(n)
    size = sum(p.stat().st_size for p in paths)
    print(
        f"archive: {n} notice versions ({2 * n} members, {size / 2**20:.1f} MiB) in {time.perf_counter() - started:.1f}s"
    )

    # Alternating pairs, medians: on a shared host single runs move by 20% and more, and a pair
    # taken back to back sees the same neighbours.
    pairs: list[tuple[IngestRun, IngestRun]] = []
    agains: list[IngestRun] = []
    peers: list[PeerRun] = []
    peer_cpus: list[CpuSpan | None] = []
    for number in range(1, runs + 1):
        single_run = _ingest_process(paths, workers=1)
        shipped_run = _ingest_process(paths, workers=None)
        again_run = _ingest_process(paths, workers=None, empty=False)
        pairs.append((single_run, shipped_run))
        agains.append(again_run)
        line = (
            f"round {number}: single {n / single_run.seconds:,.0f}/s, shipped {n / shipped_run.seconds:,.0f}/s, "
            f"{single_run.seconds / shipped_run.seconds:.2f}x; again {again_run.seconds:.2f}s "
            f"({shipped_run.seconds / again_run.seconds:.1f}x)"
        )
        if peer_runner is not None:
            with MachineCpu() as peer_cpu:
                peers.append(peer_runner.ingest(paths, n=n))
            peer_cpus.append(peer_cpu.span)
            line += f"; peer {n / peers[-1].seconds:,.0f}/s ({peers[-1].seconds / shipped_run.seconds:.2f}x)"
        print(line)
        cpu_line = (
            f"  CPU, whole processes: single {_cpu_text(single_run.cpu, n)}, shipped {_cpu_text(shipped_run.cpu, n)}"
        )
        if peer_cpus:
            cpu_line += f", peer {_cpu_text(peer_cpus[-1], n)}"
        print(cpu_line)
        run_line = (
            f"  CPU, runs alone: single {_cpu_text(single_run.run_cpu, n)}, shipped {_cpu_text(shipped_run.run_cpu, n)}"
        )
        if peers:
            run_line += f", peer {_cpu_text(peers[-1].cpu, n)}"
        print(run_line)
    print(f"single process: {pairs[-1][0].summary}")
    print(f"shipped path:   {pairs[-1][1].summary}")
    single, single_wall = _median([p[0].seconds for p in pairs]), _median([p[0].wall for p in pairs])
    shipped, shipped_wall = _median([p[1].seconds for p in pairs]), _median([p[1].wall for p in pairs])
    single_rss, shipped_rss = max(p[0].peak_mb for p in pairs), max(p[1].peak_mb for p in pairs)
    ratio = _median([p[0].seconds / p[1].seconds for p in pairs])

    members = _members(paths)
    start = time.perf_counter()
    parsed = parse_members(members)
    parse_seconds = time.perf_counter() - start
    # The same records the ingest writes: joined as the stream joins them, written in its batch size.
    from sources.adapters.doe.adapter import DoeAdapter
    from sources.adapters.doe.stream import ExportStream

    stream = ExportStream(
        archives=[(p.name, p) for p in paths], limits=DoeAdapter.zip_limits, batch=DoeAdapter.batch_limits, workers=1
    )
    batches = list(stream.batches(scope="bench"))
    del parsed
    _truncate()
    start = time.perf_counter()
    for batch in batches:
        notices_ingest(records=batch.records, use_fingerprint=fingerprint_rule_enabled())
    write_seconds = time.perf_counter() - start

    per_s, single_per_s = n / shipped, n / single
    peak = max(single_rss, shipped_rss)
    print(f"medians of {runs} alternating pairs:")
    print(
        f"single process: {single:.2f}s run ({single_per_s:,.0f}/s), {single_wall:.2f}s process, peak {single_rss:.0f} MiB"
    )
    print(
        f"shipped path:   {shipped:.2f}s run ({per_s:,.0f}/s), {shipped_wall:.2f}s process, peak {shipped_rss:.0f} MiB"
    )
    print(
        f"parse only (one core): {parse_seconds:.2f}s ({parse_seconds / single:.0%} of the single run); "
        f"write only: {write_seconds:.2f}s ({write_seconds / single:.0%})"
    )
    again = _median([a.seconds for a in agains])
    reingest = _median([p[1].seconds / a.seconds for p, a in zip(pairs, agains, strict=True)])
    print(f"re-ingest of the unchanged archive: {again:.2f}s run, {reingest:.1f}x faster than its first ingest")
    print(f"shipped vs single: {ratio:.2f}x (median of the pairs)")
    single_cpu, shipped_cpu = (
        _cpu_per_notice([p[0].cpu for p in pairs], n),
        _cpu_per_notice([p[1].cpu for p in pairs], n),
    )
    peer_cpu_ms = _cpu_per_notice(peer_cpus, n)
    if shipped_cpu is not None:
        line = f"machine CPU per notice (whole processes, medians): single {single_cpu:.2f} ms, shipped {shipped_cpu:.2f} ms"
        print(line + (f", peer {peer_cpu_ms:.2f} ms" if peer_cpu_ms is not None else ""))
    cpu_fields = "" if shipped_cpu is None else f" cpu_ms={shipped_cpu:.2f} single_cpu_ms={single_cpu:.2f}"
    peer_fields = ""
    shipped_run_cpu = _cpu_per_notice([p[1].run_cpu for p in pairs], n)
    shipped_busy = _median_share([p[1].run_cpu for p in pairs])
    if shipped_run_cpu is not None:
        cpu_fields += f" run_cpu_ms={shipped_run_cpu:.2f} run_busy={shipped_busy:.2f}"
    if peers:
        peer_ratio = _median([t.seconds / p[1].seconds for t, p in zip(peers, pairs, strict=True)])
        peer_rate = n / _median([t.seconds for t in peers])
        print(f"peer: {peer_rate:,.0f}/s; shipped vs peer: {peer_ratio:.2f}x (median of the rounds)")
        peer_fields = f" peer_per_s={peer_rate:.0f} peer_ratio={peer_ratio:.2f}"
        if peer_cpu_ms is not None:
            peer_fields += f" peer_cpu_ms={peer_cpu_ms:.2f}"
        peer_run_cpu = _cpu_per_notice([t.cpu for t in peers], n)
        if peer_run_cpu is not None:
            peer_fields += f" peer_run_cpu_ms={peer_run_cpu:.2f}"
        ceiling = _ceiling(pairs, n)
        if ceiling is not None:
            # What no scheduling can beat: every core busy all run long, at the CPU a notice the run costs.
            peer_run = f" (the peer's run: {peer_run_cpu:.2f} ms)" if peer_run_cpu is not None else ""
            print(
                f"ceiling: every core busy all run long at the shipped run's {shipped_run_cpu:.2f} ms of CPU a notice"
                f"{peer_run} gives {ceiling:,.0f}/s, {ceiling / peer_rate:.2f}x the peer; the runs kept the cores "
                f"{shipped_busy:.0%} busy"
            )
            peer_fields += f" ceiling_per_s={ceiling:.0f} ceiling_peer_ratio={ceiling / peer_rate:.2f}"
    print(
        f"RESULT e2e per_s={per_s:.0f} single_per_s={single_per_s:.0f} ratio={ratio:.2f} "
        f"again_s={again:.2f} reingest_ratio={reingest:.1f}{peer_fields}{cpu_fields} peak_mb={peak:.0f} n={n} runs={runs}"
    )


def _cpu_text(span: CpuSpan | None, n: int) -> str:
    if span is None:
        return "n/a"
    return f"{span.busy:.1f} CPU-s, {span.busy / n * 1000:.2f} ms a notice, cores {span.share:.0%} busy"


def _cpu_per_notice(spans: list[CpuSpan | None], n: int) -> float | None:
    """Median machine CPU milliseconds per notice, or None where it could not be read."""
    known = [span.busy / n * 1000 for span in spans if span is not None]
    return _median(known) if known else None


def _median_share(spans: list[CpuSpan | None]) -> float | None:
    known = [span.share for span in spans if span is not None]
    return _median(known) if known else None


def _ceiling(pairs: list[tuple[IngestRun, IngestRun]], n: int) -> float | None:
    """Notices a second of the shipped path with every core busy all run long at its runs' median CPU a notice."""
    spans = [p[1].run_cpu for p in pairs if p[1].run_cpu is not None]
    if not spans:
        return None
    per_notice = _median([span.busy / n for span in spans])
    return spans[0].cores / per_notice if per_notice > 0 else None


def _median(values: list[float]) -> float:
    return statistics.median(values)
