"""Human expert trajectories: the annotator queue, recording, replay, review and datasets."""

from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "replicagym.annotation"
    label = "annotation"
    verbose_name = "Annotation"

    def ready(self):
        # The worlds layer serves the recorder's paths and scripts but knows no annotation:
        # hand it the bar's handler and the engine's in-page helper, whose bid stamping the
        # recorder reuses so recorded actions aim at the bids the engine's replay will see.
        from episodes.engine.observation import ENGINE_JS  # noqa: PLC0415 - apps load before their modules
        from replicas.worlds.recording import recording_register  # noqa: PLC0415

        from .recorder import recording_handler  # noqa: PLC0415

        recording_register(handler=recording_handler, scripts=[ENGINE_JS])
