"""Shared vocabulary of the tender data: pure Python, no Django model imports (one module per concern)."""
