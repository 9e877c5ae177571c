"""Cached kernels load without parsing the LLVM module that only a later compile would need.

numba caches a compiled function as its machine code plus a "linking module": the function's LLVM bitcode, kept so
that another function compiled later can inline it. Loading a cached function parses that bitcode at once and
records every symbol it defines, although a process that only calls our kernels from Python never links them into
anything. For the rules core this parse was the largest share of a cached start (about 60 of the 240 ms it adds
to numba's own start on the 2-core machine; ``benchmarks/startup.py``): the step kernel's bitcode is three times
its machine code.

``rebuild`` loads a cached function (numba's ``CompileResult``) through numba's own code, with one difference: the
library it builds keeps the bitcode as bytes and parses it on first use (``_get_module_for_linking``, when a compile
links the function in). The one symbol a load looks up, the function's Python wrapper, is recorded at once; the
engine's set of defined symbols (``_LazySymbols``) parses the waiting libraries when a lookup finds nothing, so
every later question gets the answer it would have got. Where numba's internals are not as this expects (another
version), loads go the usual way.
"""

from __future__ import annotations

import threading
import weakref

import llvmlite.binding as ll
from numba.core.codegen import CPUCodeLibrary

_LOADING = threading.local()  # the wrapper's symbol name while ``rebuild`` runs (numba holds its compile lock)
_LIBRARY_CLASSES: dict[type, type] = {}


class _LazySymbols(set):
    """numba's JIT engine's defined-symbol names: on a miss, the libraries still holding unparsed bitcode are parsed
    (adding their names) and the lookup is answered again."""

    def __init__(self, names=()):
        super().__init__(names)
        self.waiting: list[weakref.ref] = []

    def __contains__(self, name) -> bool:
        if set.__contains__(self, name):
            return True
        if not self.waiting:
            return False
        waiting, self.waiting = self.waiting, []
        for ref in waiting:
            library = ref()
            if library is not None:
                library._parse_linking_module()
        return set.__contains__(self, name)


def _library_class(base: type) -> type:
    """``base`` (numba's JIT code library) whose linking module is parsed on first use."""
    cls = _LIBRARY_CLASSES.get(base)
    if cls is None:
        class LazyLinkLibrary(base):
            _linking_bitcode = None

            def _parse_linking_module(self) -> None:
                bitcode, self._linking_bitcode = self._linking_bitcode, None
                if bitcode is not None:
                    self._shared_module = ll.parse_bitcode(bitcode)
                    self._codegen._engine._load_defined_symbols(self._shared_module)

            def _get_module_for_linking(self):
                self._parse_linking_module()
                return super()._get_module_for_linking()

        cls = _LIBRARY_CLASSES[base] = LazyLinkLibrary
    return cls


def _unserialize(codegen, serialized, wrapper: str):
    """numba's ``CPUCodeLibrary._unserialize`` for machine code, the bitcode kept unparsed."""
    name, _kind, (object_code, linking_bitcode) = serialized
    library = _library_class(codegen._library_class)(codegen, name)
    library.enable_object_caching()
    library._set_compiled_object(object_code)
    library._linking_bitcode = linking_bitcode
    library._finalize_final_module()
    symbols = codegen._engine._defined_symbols
    symbols.add(wrapper)
    symbols.waiting.append(weakref.ref(library))
    return library


def _install(codegen) -> bool:
    """Route this codegen's cache loads through ``_unserialize`` while ``rebuild`` runs; False where numba's
    internals differ from what it expects."""
    if getattr(codegen, "_subterra_lazy_link", False):
        return True
    engine = getattr(codegen, "_engine", None)
    library_class = getattr(codegen, "_library_class", None)
    if (not isinstance(getattr(engine, "_defined_symbols", None), set) or not isinstance(library_class, type)
            or not issubclass(library_class, CPUCodeLibrary)
            or not hasattr(CPUCodeLibrary, "_get_module_for_linking")):
        return False
    engine._defined_symbols = _LazySymbols(engine._defined_symbols)
    usual = codegen.unserialize_library

    def unserialize_library(serialized):
        wrapper = getattr(_LOADING, "wrapper", None)
        _LOADING.wrapper = None  # one library per load: a nested load (none is known) would go the usual way
        if wrapper is None or serialized[1] != "object":
            return usual(serialized)
        return _unserialize(codegen, serialized, wrapper)

    codegen.unserialize_library = unserialize_library  # this instance only: numba's class stays as it is
    codegen._subterra_lazy_link = True
    return True


def rebuild(impl, target_context, payload):
    """``impl.rebuild(target_context, payload)`` (numba's cache loader) with the linking module left unparsed."""
    fndesc = payload[1] if len(payload) > 1 else None
    wrapper = getattr(fndesc, "llvm_cpython_wrapper_name", None)
    if wrapper is None or not _install(target_context.codegen()):
        return impl.rebuild(target_context, payload)
    _LOADING.wrapper = wrapper
    try:
        return impl.rebuild(target_context, payload)
    finally:
        _LOADING.wrapper = None
