"""An installed package (``pip install .``, the README's steps without Docker) carries every data file the code reads."""

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_data_file_of_a_package_is_declared_package_data():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    missing = []
    for package, patterns in declared.items():
        for path in (ROOT / package).rglob("*"):
            if path.is_dir() or path.suffix == ".py" or "__pycache__" in path.parts:
                continue
            relative = path.relative_to(ROOT / package).as_posix()
            if not any(fnmatch(relative, pattern) for pattern in patterns):
                missing.append(f"{package}/{relative}")
    # Build notes beside the data are no data; everything else would be missing from an installed package.
    assert [m for m in missing if not m.endswith("README.md")] == []


def test_no_other_package_holds_data_files():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package in ("config", "accounts", "tenders", "notifications"):
        if package in declared:
            continue
        data = [
            p
            for p in (ROOT / package).rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and p.name != "README.md"
        ]
        assert data == [], package
