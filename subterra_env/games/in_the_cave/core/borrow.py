"""``borrowed(a)``: the same array view without its reference count, for the batch kernels' hot loops.

Why: numba counts references to an array at every call that passes it (an atomic increment and decrement, tens
of ns); the rules are many small functions called with a game's record, so at B = 4096 those counts were most of
a legal mask's time. A view whose memory-info pointer is null is never counted. It must not outlive the array
it borrows from: the kernels use it only while their caller holds the batch.
"""

from __future__ import annotations

from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, arr):
    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        out = context.make_array(signature.return_type)(context, builder)
        for name in ("data", "shape", "strides", "itemsize", "nitems", "parent"):
            setattr(out, name, getattr(src, name))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        return out._getvalue()

    return arr(arr), codegen
