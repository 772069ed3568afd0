"""URLs served on a world's origin: the shared runtime's pages, then its REST endpoints under /api/."""

from .runtime import RUNTIME

urlpatterns = RUNTIME.urlpatterns()
