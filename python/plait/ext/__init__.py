"""`plait.ext`: where Koda programs importing from `koladata.ext` find
plait's bridges once the import is changed (`from plait.ext import npkd,
pdkd`, `import plait.ext.npkd`). The modules are those of `plait.kd_ext`,
imported on first use (pandas and pyarrow are optional); nothing lives
here."""

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["arrow", "npkd", "pdkd"]


def _target(fullname):
    """The `plait.kd_ext` module that `plait.ext.<name>` stands for, if any."""
    package, _, name = fullname.rpartition(".")
    return f"plait.kd_ext.{name}" if package == __name__ and name in __all__ else None


class _Aliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `plait.ext.<name>` as the module `plait.kd_ext.<name>` itself."""

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if _target(fullname) else None

    def create_module(self, spec):
        return importlib.import_module(_target(spec.name))

    def exec_module(self, module):
        pass  # imported already by create_module


if not any(isinstance(finder, _Aliases) for finder in sys.meta_path):
    sys.meta_path.append(_Aliases())


def __getattr__(name):
    if name not in __all__:
        raise AttributeError(f"module 'plait.ext' has no attribute '{name}'")
    return importlib.import_module(f"{__name__}.{name}")
