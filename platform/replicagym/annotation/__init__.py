"""Human expert trajectories: the annotator queue, recording, replay, review and datasets."""
