"""bench.against: which migrations a copy of the bench database goes back to for an earlier commit's code."""

from __future__ import annotations

import pytest

from bench.against import migration_names, migrations_back


def test_an_app_goes_back_to_the_newest_migration_both_trees_hold():
    current = {"tenders": ["0001_initial", "0002_a", "0003_b"], "accounts": ["0001_initial"]}
    other = {"tenders": ["0001_initial", "0002_a"], "accounts": ["0001_initial"]}
    assert migrations_back(current=current, other=other) == [("tenders", "0002_a")]


def test_an_app_the_earlier_code_did_not_have_goes_back_to_zero():
    current = {"tenders": ["0001_initial"], "bids": ["0001_initial", "0002_x"]}
    assert migrations_back(current=current, other={"tenders": ["0001_initial"]}) == [("bids", "zero")]


def test_agreeing_trees_need_nothing():
    same = {"tenders": ["0001_initial", "0002_a"]}
    assert migrations_back(current=same, other=dict(same)) == []


def test_a_newer_tree_is_refused():
    with pytest.raises(SystemExit, match="does not know"):
        migrations_back(current={"tenders": ["0001_initial"]}, other={"tenders": ["0001_initial", "0002_new"]})


def test_this_checkouts_migrations_are_read_in_order(tmp_path):
    package = tmp_path / "tenders" / "migrations"
    package.mkdir(parents=True)
    for name in ("__init__.py", "0002_b.py", "0001_initial.py", "helpers.py"):
        (package / name).write_text("")
    assert migration_names(tmp_path) == {"tenders": ["0001_initial", "0002_b"]}
