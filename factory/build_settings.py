"""Settings for the build's sandbox process (task synthesis): the project's, with its throwaway database made from
the models by `migrate --run-syncdb` instead of by running every app's migrations, which took most of a build's
time. The replica's own migration is still written (makemigrations, under the project's settings)."""

from replicagym.settings import *  # noqa: F403


class _NoMigrations(dict):
    """Every app label maps to None: Django then treats the app as unmigrated and syncdb creates its tables."""

    def __contains__(self, label):
        return True

    def __getitem__(self, label):
        return None


MIGRATION_MODULES = _NoMigrations()
