"""The hook command hosts run: ``PYTHON -I -S …/tether/daemon/hook.py HOST``.

Python compiles the script it is started with on every run and never caches it, so this file
stays tiny: it loads the hook's code (``_hook.py``, a module whose bytecode is cached in
``__pycache__`` like any other) with the import machinery the interpreter froze into itself and
has already loaded, so nothing is imported that ``python -I -S`` did not load anyway, and runs
it. Imported (``tether.daemon.hook``) it offers the same names, from the same loaded code.
"""

import sys

TYPE_CHECKING = False  # typing's own flag costs an import
if TYPE_CHECKING:
    from tether.daemon._hook import *  # noqa: F403  (what the loaded module offers)

_NAME = "tether_hook_code"


def _load() -> object:
    found = sys.modules.get(_NAME)
    if found is not None:
        return found
    machinery = sys.modules["_frozen_importlib_external"]
    bootstrap = sys.modules["_frozen_importlib"]
    spec = machinery.spec_from_file_location(_NAME, __file__.rpartition("/")[0] + "/_hook.py")
    module = bootstrap.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    module.LAUNCHER[0] = __file__
    return module


_code = _load()
if __name__ == "__main__":
    _code.run()  # type: ignore[attr-defined]
globals().update({k: v for k, v in vars(_code).items() if not k.startswith("__")})
