"""Fault injection: deterministic adversity inside a world (timeouts, errors, expired sessions, modals, messy data).

A task or variant arms faults per world (World.faults); they fire at deterministic
triggers, and each writes FaultEvent rows that the episode engine records per step
and the error_recovery reward reads (each event carries its fault's recovery definition).
"""

from ..registry import get_replica
from .data import DataFaultContext, DataFaultError, world_data_fault
from .library import LIBRARY
from .runtime import fault_events, faults_arm, recovery_outcomes, recovery_rate, world_step
from .spec import FaultSpecError, fault_spec_errors, validate_faults


def faults_for_world(*, replica: str, variant: str, faults: list | None) -> list[dict]:
    """The faults a new world is armed with: the variant's own (knob `faults`), then the task's; validated."""
    # validated apart first, so an error's index is the one in the task's own list
    task_faults = validate_faults(faults or [], replica=replica)
    variant_faults = get_replica(replica).knobs(variant).get("faults", [])
    return validate_faults([*variant_faults, *task_faults], replica=replica)


__all__ = [
    "LIBRARY",
    "DataFaultContext",
    "DataFaultError",
    "FaultSpecError",
    "fault_events",
    "fault_spec_errors",
    "faults_arm",
    "faults_for_world",
    "recovery_outcomes",
    "recovery_rate",
    "validate_faults",
    "world_data_fault",
    "world_step",
]
