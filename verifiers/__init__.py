"""Verifier specs, assertions and reward signals."""
