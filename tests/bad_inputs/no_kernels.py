"""Host-side helpers only: nothing to translate."""
import cuda.tile as ct


def launch_nothing():
    return ct.cdiv(10, 3)
