"""Optional parts of a deliverable-type plugin, found by name so that phases never import plugins.

`plugin_module(DeliverableType.CODE, "discovery")` is `thoughtforge.plugins.code.discovery` when
that module exists, and None when it or the whole plugin is missing. An import error
inside a module that does exist propagates: a broken hook is a bug to see, not a hook to skip.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from thoughtforge.models import DeliverableType


def plugin_module(deliverable_type: DeliverableType, name: str) -> ModuleType | None:
    """The plugin's module `name`, or None when the deliverable type's plugin does not have it."""
    module_name = f"thoughtforge.plugins.{deliverable_type.value}.{name}"
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not f"{module_name}.".startswith(f"{exc.name}."):
            raise
        return None
