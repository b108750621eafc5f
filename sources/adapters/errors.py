"""The adapters' run-level failure, in a module of its own.

Why apart from :mod:`sources.adapters.base`: the parse workers raise and report it, and their fork
server should not import the network client and the settings schemas that ``base`` needs.
"""

from __future__ import annotations

__all__ = ["AdapterError"]


class AdapterError(Exception):
    """A run-level failure with a short machine reason for FetchRun.error_reason."""

    def __init__(self, message: str, *, reason: str = "adapter_error"):
        super().__init__(message)
        self.reason = reason
