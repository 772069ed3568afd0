from django.apps import AppConfig


class EpisodesConfig(AppConfig):
    name = "episodes"
    verbose_name = "Episodes"

    def ready(self):
        # the catalogue (a lower layer) checks task packs' actions with the engine's grammar
        from replicagym.catalogue.packs import action_grammar_register

        from .actions import ActionError, parse_action

        action_grammar_register(parse=parse_action, error=ActionError)
