"""What pytest, unittest and torch's runtime collect from a module, as one model every consumer asks.

The rules (HWC001, HWC005, HWC107), the inference and the selector ask the same questions here and
get the same answers: which classes instantiation generates and under which names.
"""

from __future__ import annotations

from .model import Instantiation
from .taxonomy import Taxonomy


def generated_devices(taxonomy: Taxonomy, call: Instantiation) -> list[str]:
    """Device types *call* may generate classes for (filters applied where they can be resolved)."""
    out = []
    for name, dev in taxonomy.devices.items():
        aliases = taxonomy.device_aliases(name)
        only, excluded = call.only_for, call.except_for
        # An empty only_for is falsy, and the runtime then applies no filter at all.
        if only is not None and only.devices and not aliases & set(only.devices):
            continue
        if excluded is not None and excluded.devices is not None and aliases & set(excluded.devices):
            continue
        if dev.opt_in and call.opt_in(dev.opt_in) is False:
            continue
        out.append(name)
    return out


def generated_suffixes(taxonomy: Taxonomy, device: str) -> list[str]:
    """Class-name suffixes instantiation may use for *device* (PrivateUse1 also uses backend names)."""
    names = [device.upper()]
    if device == "privateuse1":
        names += [b.upper() for b in taxonomy.backends()]
    return names
