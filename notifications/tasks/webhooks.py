"""Celery edges; each task parses ids and calls one service."""
