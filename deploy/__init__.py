"""Helpers to bring a Menagerie stack up on one machine (``make cluster-up``) and in tests."""
