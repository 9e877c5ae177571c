"""``prefetch_game(states, b)``: ask the memory for game b's whole record before the batch loop reaches it.

Why: at large batches the records do not stay in the caches between the kernels of one decision (at B = 4096 the
state and the default window's observations take 10 + 31 MB, the 2-core VM's L3 32 MB), and every game's record
then comes from memory a scattered field at a time, each a stall the hardware's prefetchers do not foresee (the
observation's tile section cost 472 ns a game at B = 4096 against 150 in cache: docs/benchmarks.md). The batch
loops walk the records in order, so each asks for the record ``AHEAD`` games on while it works on this one. A
prefetch is a hint: it changes no value and never faults, so games come out the same with or without it.
"""

from __future__ import annotations

import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

AHEAD = 2  # games ahead: one game's rules take long enough for the record two on to arrive (measured 2 and 4)
LINE = 64  # bytes of a cache line on x86-64 and most aarch64 (where lines are longer, a line is asked for twice)


@intrinsic
def _prefetch_byte(typingctx, arr, offset):
    """llvm.prefetch of the line holding byte ``offset`` of ``arr``'s data: for reading, kept in every cache
    level. On a machine without a prefetch instruction LLVM emits nothing."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, value=args[0]).data
        pointer = builder.gep(builder.bitcast(data, ir.IntType(8).as_pointer()), [args[1]])
        i32 = ir.IntType(32)
        fn_type = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), i32, i32, i32])
        prefetch = cgutils.get_or_insert_function(builder.module, fn_type, "llvm.prefetch.p0i8")
        # (address, 0 = read, 3 = keep in all levels, 1 = data cache): LLVM wants the last three as constants
        builder.call(prefetch, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, types.intp), codegen


@numba.njit(inline="always")
def prefetch_game(states, b):
    """Prefetch every line of record ``b + AHEAD`` of the batch ``states`` (nothing past its end)."""
    ahead = b + AHEAD
    if ahead < states.shape[0]:
        size = states.itemsize
        start = ahead * states.strides[0]  # a view with a step between its records asks for the right ones
        for offset in range(start, start + size, LINE):
            _prefetch_byte(states, offset)
        _prefetch_byte(states, start + size - 1)  # the record's last line, where it starts part-way into one
