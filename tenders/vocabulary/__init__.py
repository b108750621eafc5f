"""Shared vocabulary of the tender domain: code lists and their German labels. Pure Python, no models.

One module per list; parsers, adapters, the tender model and the portal import from here, so a
code means the same wherever it appears.
"""
