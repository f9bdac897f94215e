"""``model.gc_resume`` / ``model.gc_paused``: the GC back on after a pass without the young
collection over the pass's objects, and what someone else froze stays frozen (issue 14)."""

import gc

from workbench.core.model import gc_paused, gc_resume


def _collections_after_pass() -> int:
    """Collections set off from the end of a pass to the next allocations after it (none when
    the pass's objects were spliced out of the young generation)."""
    seen: list[int] = []

    def cb(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    try:
        with gc_paused():
            keep = [[i] for i in range(5000)]  # the pass's objects: tracked, young generation
            gc.callbacks.append(cb)
        more = [[i] for i in range(100)]
    finally:
        gc.callbacks.remove(cb)
    del keep, more
    return len(seen)


def test_gc_paused_moves_the_pass_out_of_the_young_generation():
    was = gc.isenabled()
    gc.enable()
    try:
        assert gc.get_freeze_count() == 0
        assert _collections_after_pass() == 0  # no gen-0 pass over the 5,000 objects
        assert gc.isenabled() and gc.get_freeze_count() == 0
        with gc_paused():
            with gc_paused():  # nested: the inner block leaves it off
                pass
            assert not gc.isenabled()
        assert gc.isenabled()
    finally:
        if not was:
            gc.disable()


def test_gc_resume_keeps_frozen_objects_frozen():
    was = gc.isenabled()
    gc.freeze()  # as the window's scan pass (its catalogs) and the bench (its heap) do
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        gc.disable()
        gc_resume()
        assert gc.isenabled() and gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()
        if not was:
            gc.disable()
