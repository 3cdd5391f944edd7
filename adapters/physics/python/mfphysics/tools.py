"""The tools run.py serves, by the name the Go side calls them with."""
import importlib.metadata

from . import simulate, stability


def version(_args):
    """PyBullet's release, from its distribution (the module has no
    __version__)."""
    return {"version": importlib.metadata.version("pybullet")}


HANDLERS = {
    "version": version,
    "run_simulation": simulate.run,
    "validate_stability": stability.run,
}
