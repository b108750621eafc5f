"""Shared vocabulary: code lists and labels, pure Python (no Django model imports)."""
