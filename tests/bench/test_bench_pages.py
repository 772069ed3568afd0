"""Every replica's bench pages answer 200, so the server and render benchmarks time real pages (a 404 page
among them once timed as if it were the support desk's busiest view)."""

import pytest

from bench.render import bench_render
from bench.scenario import bench_pages
from replicas.worlds.registry import replicas
from replicas.worlds.services import world_create


@pytest.mark.django_db
@pytest.mark.parametrize("replica", sorted(replicas()))
def test_every_bench_page_of_the_replica_renders_signed_in(replica):
    # the render benchmark's own run: it makes the world it times (seed 7, default variant) and
    # reports under `failed` each page that answers other than 200
    render = bench_render(replica=replica, requests=1)
    world = world_create(replica=replica, seed=render["seed"], variant=render["variant"])
    pages = bench_pages(world)
    assert pages, f"{replica} declares no bench page"
    assert render["failed"] == {}
    assert list(render["pages"]) == pages
