"""Runs as a service: launching and following runs, reports, the episode viewer, diagnosis and the quality gate."""
